package functions

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"strings"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func hashFunctions() []*lang.Function {
	h := func(name, desc string, sum func(b []byte) []byte) *lang.Function {
		return fn(name, lang.TString, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, errNullValue // Guava's hashString(null)
			}
			return hex.EncodeToString(sum([]byte(a.String(0, "")))), nil
		}, req("value", lang.TString, "The value to hash"))
	}
	// Guava's HashCode of an int (crc32, crc32c, murmur3_32) prints its
	// bytes little-endian.
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	return []*lang.Function{
		h("crc32", "Create CRC32 hash of a string", func(b []byte) []byte { return le32(crc32.ChecksumIEEE(b)) }),
		h("crc32c", "Create CRC32C hash of a string", func(b []byte) []byte {
			return le32(crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
		}),
		h("md5", "Create MD5 hash of a string", func(b []byte) []byte { s := md5.Sum(b); return s[:] }),
		h("murmur3_32", "Create Murmur3 32 bit hash of a string", func(b []byte) []byte { return le32(murmur32(b, 0)) }),
		h("murmur3_128", "Create Murmur3 128 bit hash of a string", func(b []byte) []byte {
			h1, h2 := murmur128(b, 0)
			out := binary.LittleEndian.AppendUint64(nil, h1)
			return binary.LittleEndian.AppendUint64(out, h2)
		}),
		h("sha1", "Create SHA1 hash of a string", func(b []byte) []byte { s := sha1.Sum(b); return s[:] }),
		h("sha256", "Create SHA256 hash of a string", func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }),
		h("sha512", "Create SHA512 hash of a string", func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }),
	}
}

// murmur32 is MurmurHash3_x86_32, as Guava's Hashing.murmur3_32 computes it.
func murmur32(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32(data[4*i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[4*n:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// murmur128 is MurmurHash3_x64_128, as Guava's Hashing.murmur3_128.
func murmur128(data []byte, seed uint64) (uint64, uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 := seed, seed
	n := len(data) / 16
	for i := 0; i < n; i++ {
		k1 := binary.LittleEndian.Uint64(data[16*i:])
		k2 := binary.LittleEndian.Uint64(data[16*i+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[16*n:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(tail[i]) << (8 * (i - 8))
	}
	if len(tail) > 8 {
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(tail[i]) << (8 * i)
	}
	if len(tail) > 0 {
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// codec is one of Guava's BaseEncodings as Graylog's functions use them.
type codec struct {
	encode func(b []byte, omitPadding bool) string
	decode func(s string, omitPadding bool) ([]byte, error)
}

func base32Codec(enc *base32.Encoding, lower bool) codec {
	return codec{
		encode: func(b []byte, omit bool) string {
			e := enc
			if omit {
				e = e.WithPadding(base32.NoPadding)
			}
			s := e.EncodeToString(b)
			if lower {
				s = strings.ToLower(s)
			}
			return s
		},
		decode: func(s string, omit bool) ([]byte, error) {
			s = strings.ToUpper(s)
			e := enc
			if omit || !strings.HasSuffix(s, "=") && len(s)%8 != 0 {
				e = e.WithPadding(base32.NoPadding)
				s = strings.TrimRight(s, "=")
			}
			return e.DecodeString(s)
		},
	}
}

func base64Codec(enc *base64.Encoding) codec {
	return codec{
		encode: func(b []byte, omit bool) string {
			if omit {
				return enc.WithPadding(base64.NoPadding).EncodeToString(b)
			}
			return enc.EncodeToString(b)
		},
		decode: func(s string, omit bool) ([]byte, error) {
			if omit || !strings.HasSuffix(s, "=") && len(s)%4 != 0 {
				return enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
			}
			return enc.DecodeString(s)
		},
	}
}

// errNullValue is Graylog's NullPointerException of a function given a
// null string it needs.
var errNullValue = errors.New("value must not be null")

func encodingFunctions() []*lang.Function {
	codecs := []struct {
		name, desc string
		c          codec
	}{
		{"base16", "Base16 (hexadecimal)", codec{
			// Guava's base16() is upper case, and reads upper case only.
			encode: func(b []byte, _ bool) string { return strings.ToUpper(hex.EncodeToString(b)) },
			decode: func(s string, _ bool) ([]byte, error) {
				if i := strings.IndexAny(s, "abcdef"); i >= 0 {
					//lint:ignore ST1005 Guava's words
					return nil, fmt.Errorf("Unrecognized character: %c", s[i])
				}
				return hex.DecodeString(s)
			},
		}},
		{"base32", "Base32 (extended hex alphabet)", base32Codec(base32.HexEncoding, false)},
		{"base32human", "Base32 (standard alphabet)", base32Codec(base32.StdEncoding, false)},
		{"base64", "Base64", base64Codec(base64.StdEncoding)},
		{"base64url", "Base64 (URL-safe alphabet)", base64Codec(base64.URLEncoding)},
	}
	var out []*lang.Function
	for _, c := range codecs {
		c := c
		out = append(out,
			fn(c.name+"_encode", lang.TString, c.desc+" encoding of the string", func(_ *lang.Context, a lang.Args) (any, error) {
				if a.Get(0) == nil {
					return nil, errNullValue
				}
				return c.c.encode([]byte(a.String(0, "")), a.Bool(1, false)), nil
			}, req("value", lang.TString, "The value to encode"), opt("omit_padding", lang.TBoolean, "Omit any padding characters")),
			fn(c.name+"_decode", lang.TString, c.desc+" decoding of the string", func(_ *lang.Context, a lang.Args) (any, error) {
				if a.Get(0) == nil {
					return nil, errNullValue
				}
				b, err := c.c.decode(a.String(0, ""), a.Bool(1, false))
				if err != nil {
					return nil, err
				}
				return string(b), nil
			}, req("value", lang.TString, "The value to decode"), opt("omit_padding", lang.TBoolean, "Omit any padding characters")),
		)
	}
	return out
}
