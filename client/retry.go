package client

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says how a request that failed in a way that may pass is sent again: a network error, or an answer
// with a 5xx status other than 501 Not Implemented — what the reference's Go SDK retries. Other answers are final:
// a 4xx is the caller's to fix, a 501 will not change. The request is sent again byte for byte, stamp included: an
// activity submitted twice is the same activity (the coordinator finds it by its body), and a query changes nothing.
//
// The zero value sends a request up to four times, waiting 250 ms, 500 ms and 1 s (each between half and all of
// that, at random, so that clients do not retry in step), or what a Retry-After header asks, up to MaxBackoff.
type RetryPolicy struct {
	// MaxAttempts is how many times a request is sent at most, the first included (default 4; 1 never retries).
	MaxAttempts int
	// MinBackoff is the wait before the first retry (default 250 ms); each next one doubles, up to MaxBackoff.
	MinBackoff time.Duration
	// MaxBackoff caps one wait (default 5 s), a Retry-After included.
	MaxBackoff time.Duration
}

// send sends req with hc until it gets an answer that is not retried, or runs out of attempts; it returns the last
// answer or error. The request's context bounds it all.
func (p RetryPolicy) send(hc *http.Client, req *http.Request) (*http.Response, error) {
	attempts := cmp.Or(p.MaxAttempts, 4)
	for attempt := 1; ; attempt++ {
		res, err := hc.Do(req)
		if attempt >= attempts || !retryable(req.Context(), res, err) || req.GetBody == nil && req.Body != nil {
			return res, err
		}
		wait := p.backoff(attempt, res)
		if res != nil {
			io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // so that the connection is reused
			res.Body.Close()
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(wait):
		}
		if req, err = rewound(req); err != nil {
			return nil, err
		}
	}
}

// retryable reports whether a request that got res or err may succeed if sent again.
func retryable(ctx context.Context, res *http.Response, err error) bool {
	if err != nil {
		var unknownAuthority x509.UnknownAuthorityError
		var hostname x509.HostnameError
		var invalid x509.CertificateInvalidError
		var verification *tls.CertificateVerificationError
		switch {
		case ctx.Err() != nil: // the caller's deadline or cancellation, not the network's failure
			return false
		case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verification):
			return false // a certificate that is refused now is refused next time
		}
		return true
	}
	return res.StatusCode >= 500 && res.StatusCode != http.StatusNotImplemented
}

// backoff is the wait before sending a request again after attempt attempts: MinBackoff doubled for each earlier
// retry, with jitter, or the answer's Retry-After; at most MaxBackoff.
func (p RetryPolicy) backoff(attempt int, res *http.Response) time.Duration {
	limit := cmp.Or(p.MaxBackoff, 5*time.Second)
	if res != nil {
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
			return min(time.Duration(s)*time.Second, limit)
		}
	}
	d := cmp.Or(p.MinBackoff, 250*time.Millisecond) << min(attempt-1, 20)
	d = min(d, limit)
	return d/2 + rand.N(d/2+1)
}

// rewound is req ready to be sent again, its body read from the start.
func rewound(req *http.Request) (*http.Request, error) {
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		again.Body = body
	}
	return again, nil
}
