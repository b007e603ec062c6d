package embedded

import (
	"container/list"
	"sync"
)

// defaultBlockCache is the memory a store gives decoded blocks when
// Options.BlockCache is 0: a few dozen blocks of a kilobyte-per-message
// corpus, little beside the meta sections a store keeps anyway.
const defaultBlockCache = 32 << 20

// blockCache keeps recently decoded version 3 blocks of a store's
// segments, so that searches repeating over the newest messages, and the
// phrase check and page fetch of one search, decompress a block once. It
// is bounded by the bytes its blocks hold, not by their count, as one
// block may hold a thousand small messages or a few large ones; a block
// larger than the whole bound is not kept.
type blockCache struct {
	max int64

	mu    sync.Mutex
	size  int64
	lru   *list.List // of *cacheEntry, most recent first
	byKey map[*segment]map[int]*list.Element
}

type cacheEntry struct {
	seg   *segment
	block int
	b     *colBlock
}

func newBlockCache(max int64) *blockCache {
	if max <= 0 {
		return nil
	}
	return &blockCache{max: max, lru: list.New(), byKey: map[*segment]map[int]*list.Element{}}
}

// get returns the decoded block b of seg, or nil. A nil cache holds
// nothing.
func (c *blockCache) get(seg *segment, b int) *colBlock {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byKey[seg][b]
	if el == nil {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).b
}

// put keeps block b of seg, evicting the least recently used blocks
// beyond the bound.
func (c *blockCache) put(seg *segment, b int, cb *colBlock) {
	if c == nil || cb.size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	blocks := c.byKey[seg]
	if blocks == nil {
		blocks = map[int]*list.Element{}
		c.byKey[seg] = blocks
	}
	if blocks[b] != nil {
		return
	}
	blocks[b] = c.lru.PushFront(&cacheEntry{seg: seg, block: b, b: cb})
	c.size += cb.size
	for c.size > c.max {
		c.remove(c.lru.Back())
	}
}

// drop forgets every block of seg, once it is closed: after a merge
// replaced it or its index was deleted.
func (c *blockCache) drop(seg *segment) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.byKey[seg] {
		c.remove(el)
	}
}

func (c *blockCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	c.size -= e.b.size
	delete(c.byKey[e.seg], e.block)
	if len(c.byKey[e.seg]) == 0 {
		delete(c.byKey, e.seg)
	}
}

// bytes returns the memory the cached blocks hold, for tests.
func (c *blockCache) bytes() (int64, int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.lru.Len()
}
