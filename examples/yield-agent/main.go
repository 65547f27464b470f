// Command yield-agent runs the policy-restricted agent journey against a running Sigil stack:
//
//	go run ./examples/yield-agent --bootstrap .sigil/bootstrap.json
//
// Read ../yieldagent/journey.go for the journey itself; this file only reads the stack's addresses and prints.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/sigil/sigil/examples/yieldagent"
	"github.com/sigil/sigil/stamp"
)

func main() {
	path := flag.String("bootstrap", ".sigil/bootstrap.json", "bootstrap.json of a running `sigil up`")
	amount := flag.String("amount", "100", "USDC to deposit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *path, *amount); err != nil {
		fmt.Fprintln(os.Stderr, "yield-agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path, amount string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var b struct {
		OrganizationID string `json:"organizationId"`
		APIPrivateKey  string `json:"apiPrivateKey"`
		CoordinatorURL string `json:"coordinatorUrl"`
		YieldURL       string `json:"yieldUrl"`
		YieldAPIKey    string `json:"yieldApiKey"`
		ChainRPCURL    string `json:"chainRpcUrl"`
		ChainID        int64  `json:"chainId"`
		FaucetURL      string `json:"faucetUrl"`
		Network        string `json:"network"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, b.APIPrivateKey)
	if err != nil {
		return err
	}
	sum, err := yieldagent.Run(ctx, yieldagent.Config{
		CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL,
		Network: b.Network, ChainID: b.ChainID, Amount: amount,
	}, lines{})
	if err != nil {
		return err
	}
	fmt.Printf("\nagent %s, wallet %s, yield %s\ndeposited %s USDC; after enter: %s; after exit: %s\n",
		sum.AgentUserID, sum.WalletAddress, sum.YieldID, sum.Deposited, sum.BalanceAfterEnter, sum.BalanceAfterExit)
	return nil
}

// lines prints one line per step.
type lines struct{}

func (lines) Start(step string)  { fmt.Printf("• %s ... ", step) }
func (lines) Done(detail string) { fmt.Println("ok", detail) }
func (lines) Fail(err error)     { fmt.Println("FAILED:", err) }
