package solanarpc_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/solanarpc"
)

// A call is answered with its result, or with the cluster's error; a cluster that does not answer is ErrNoAnswer.
func TestCall(t *testing.T) {
	ctx := context.Background()
	node, err := solanadev.Start(ctx, solanadev.Config{ListenAddr: "127.0.0.1:0", SlotPeriod: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	c := solanarpc.New(node.URL())
	var genesis string
	if err := c.Call(ctx, "getGenesisHash", &genesis); err != nil || genesis != node.GenesisHash() {
		t.Fatalf("getGenesisHash: %q %v", genesis, err)
	}
	var rpcErr *solanarpc.Error
	if err := c.Call(ctx, "getBlock", nil, 1<<40, map[string]string{"commitment": "confirmed"}); !errors.As(err, &rpcErr) || rpcErr.Code != -32004 ||
		errors.Is(err, solanarpc.ErrNoAnswer) {
		t.Fatalf("a block not available: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	if err := solanarpc.New(closed).Call(ctx, "getSlot", nil); !errors.Is(err, solanarpc.ErrNoAnswer) {
		t.Fatalf("a cluster that does not answer: %v", err)
	}
}
