// Package yieldtest has helpers for tests that run a yield service.
package yieldtest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// AllocatorFees lists the performance fees of the allocator vaults a yield API key sees at the service at url:
// "10.00" or "20.00" by the key's fee set.
func AllocatorFees(t testing.TB, url, key string) []string {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/v1/yields?type=vault&limit=100", nil)
	req.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Items []struct {
			Mechanics struct {
				Fee struct {
					Performance string `json:"performance"`
				} `json:"fee"`
			} `json:"mechanics"`
		} `json:"items"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /v1/yields with a key: %d, %v", res.StatusCode, err)
	}
	var fees []string
	for _, y := range page.Items {
		if y.Mechanics.Fee.Performance != "0.00" {
			fees = append(fees, y.Mechanics.Fee.Performance)
		}
	}
	return fees
}
