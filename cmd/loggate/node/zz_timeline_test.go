package node_test

import (
	"bufio"
	"net"
	"sync"
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestZZTimeline(t *testing.T) {
	msgs := corpusGELF(200000)
	h := nodetest.Start(t)
	_, addr := h.CreateInput(tcpInput, nil)
	start := h.Node.Messages.Journal.End()
	done := make(chan struct{})
	go func() {
		began, cpu := time.Now(), cpuTime()
		lastCPU, lastT := cpu, began
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			now, c := time.Now(), cpuTime()
			st := h.Node.Messages.Processor.State()
			fmt.Printf("%5.2fs cores %.2f journal %6d processed %6d flushed %6d\n", now.Sub(began).Seconds(),
				float64(c-lastCPU)/float64(now.Sub(lastT)), h.Node.Messages.Journal.End()-start, st.Next-start, st.Flushed-start)
			lastCPU, lastT = c, now
		}
	}()
	sendTCPT(t, addr.String(), msgs)
	for h.Node.Messages.Processor.State().Next < start+200000 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(done)
}

func sendTCPT(t *testing.T, addr string, msgs []string) {
	const conns = 2
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			w := bufio.NewWriterSize(conn, 64<<10)
			for i := c; i < len(msgs); i += conns {
				w.WriteString(msgs[i])
				w.WriteByte(0)
			}
			w.Flush()
		})
	}
	wg.Wait()
	fmt.Println("sent")
}
