package journal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

const crashDirEnv = "LOGGATE_JOURNAL_CRASH_DIR"

// crashOpts are small segments so crashes also land around rolls and
// deletions.
var crashOpts = Options{SegmentSize: 32 << 10}

// crashCommitLag is how far the helper's commits trail its reads.
const crashCommitLag = 1000

// TestCrashHelper is the child process of TestCrashRecovery: it appends from
// several goroutines, prints every acknowledged batch, and processes and
// commits concurrently, until it is killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process for TestCrashRecovery")
	}
	var round int
	fmt.Sscan(os.Getenv(crashDirEnv+"_ROUND"), &round)
	j, err := Open(dir, crashOpts)
	if err != nil {
		fmt.Println("open error:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	var out sync.Mutex
	for w := range 8 {
		g := round*100 + w
		go func() {
			for i := 0; ; {
				recs := [][]byte{record(g, i)}
				for k := 1; k < 1+i%3; k++ {
					recs = append(recs, record(g, i+k))
				}
				first, last, err := j.Append(ctx, recs...)
				if err != nil {
					fmt.Println("append error:", err)
					os.Exit(2)
				}
				out.Lock()
				fmt.Printf("ack %d %d %d %d\n", first, last, g, i)
				out.Unlock()
				i += len(recs)
			}
		}()
	}
	for off := j.Committed(); ; {
		if err := j.Wait(ctx, off); err != nil {
			os.Exit(2)
		}
		es, err := j.Read(off, 50)
		if err != nil {
			fmt.Println("read error:", err)
			os.Exit(2)
		}
		off = es[len(es)-1].Offset + 1
		// Lag behind so the parent can verify most acknowledged records
		// while commits and segment deletions still race with the kill.
		if off > crashCommitLag {
			if err := j.Commit(off - crashCommitLag); err != nil {
				os.Exit(2)
			}
		}
	}
}

// TestCrashRecovery kill -9s a process that is appending and committing at a
// random moment, several times over the same directory, and checks after
// each restart that every acknowledged record is either committed or present
// with its bytes at its offset.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)

	type ack struct {
		first, last uint64
		g, i        int
	}
	for round := range 3 {
		killAfter := 100 + rng.IntN(1500)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, fmt.Sprintf("%s_ROUND=%d", crashDirEnv, round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acks []ack
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			var a ack
			if _, err := fmt.Sscanf(line, "ack %d %d %d %d", &a.first, &a.last, &a.g, &a.i); err != nil {
				if strings.Contains(line, "error") {
					t.Fatalf("helper: %s", line)
				}
				continue
			}
			acks = append(acks, a)
			if len(acks) == killAfter {
				cmd.Process.Kill() // SIGKILL; lines already written are still acknowledged
			}
		}
		err = cmd.Wait()
		if len(acks) < killAfter {
			t.Fatalf("round %d: helper exited after %d acks (%v): %s", round, len(acks), err, stderr.String())
		}

		j, err := Open(dir, crashOpts)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		committed, end := j.Committed(), j.End()
		checked := 0
		for _, a := range acks {
			if a.last >= end {
				j.Close()
				t.Fatalf("round %d: acknowledged offset %d lost; journal ends at %d", round, a.last, end)
			}
			for off := max(a.first, committed); off <= a.last; off++ {
				es, err := j.Read(off, 1)
				if err != nil || len(es) != 1 || !bytes.Equal(es[0].Data, record(a.g, a.i+int(off-a.first))) {
					j.Close()
					t.Fatalf("round %d: acknowledged offset %d: %v %v", round, off, es, err)
				}
				checked++
			}
		}
		// The helper reads and commits as it goes; replay the rest once to
		// see the journal is whole from the commit to the end.
		if n := len(readAll(t, j, committed)); uint64(n) != end-committed {
			t.Fatalf("round %d: %d records from %d to %d", round, n, committed, end)
		}
		t.Logf("round %d: killed after %d acks; %d uncommitted acknowledged records verified; committed %d, end %d",
			round, len(acks), checked, committed, end)
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
