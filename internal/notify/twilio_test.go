package notify

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeTwilio checks requests the way Twilio would and answers like it.
func fakeTwilio(t *testing.T, sid, token string) (*httptest.Server, *[]url.Values) {
	t.Helper()
	var got []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+sid+"/Messages.json" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"code":20404,"message":"The requested resource was not found","more_info":"https://www.twilio.com/docs/errors/20404","status":404}`)
			return
		}
		if u, p, ok := r.BasicAuth(); !ok || u != sid || p != token {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":20003,"message":"Authenticate","more_info":"https://www.twilio.com/docs/errors/20003","status":401}`)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
			t.Errorf("Content-Type %q", ct)
		}
		body, _ := io.ReadAll(r.Body)
		form, err := url.ParseQuery(string(body))
		if err != nil {
			t.Errorf("body %q: %v", body, err)
		}
		got = append(got, form)
		if !strings.HasPrefix(form.Get("To"), "+1") {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"code":21211,"message":"The 'To' number `+form.Get("To")+` is not a valid phone number.","more_info":"https://www.twilio.com/docs/errors/21211","status":400}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"sid":"SM0123456789abcdef0123456789abcdef","status":"queued","to":"`+form.Get("To")+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestTwilio(t *testing.T) {
	t.Parallel()
	srv, got := fakeTwilio(t, "AC123", "tok")
	tw, err := NewTwilio(TwilioConfig{BaseURL: srv.URL, AccountSID: "AC123", AuthToken: "tok", From: "+15005550006"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.SendSMS(context.Background(), SMS{To: "+14155550123", Body: "Your code is 123456"}); err != nil {
		t.Fatal(err)
	}
	f := (*got)[0]
	if f.Get("To") != "+14155550123" || f.Get("From") != "+15005550006" || f.Get("Body") != "Your code is 123456" || f.Has("MessagingServiceSid") {
		t.Errorf("form %v", f)
	}

	err = tw.SendSMS(context.Background(), SMS{To: "+44123", Body: "x"})
	var te *TwilioError
	if !errors.As(err, &te) || te.Code != 21211 || te.HTTPStatus != 400 || !strings.Contains(err.Error(), "is not a valid phone number") ||
		!strings.Contains(err.Error(), "errors/21211") {
		t.Fatalf("err = %v", err)
	}

	svc, err := NewTwilio(TwilioConfig{BaseURL: srv.URL + "/", AccountSID: "AC123", AuthToken: "tok", MessagingServiceSID: "MG42"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SendSMS(context.Background(), SMS{To: "+14155550123", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if f := (*got)[2]; f.Get("MessagingServiceSid") != "MG42" || f.Has("From") {
		t.Errorf("messaging service form %v", f)
	}

	bad, _ := NewTwilio(TwilioConfig{BaseURL: srv.URL, AccountSID: "AC123", AuthToken: "wrong", From: "+15005550006"})
	if err := bad.SendSMS(context.Background(), SMS{To: "+14155550123", Body: "b"}); !errors.As(err, &te) || te.Code != 20003 || te.HTTPStatus != 401 {
		t.Errorf("bad token: %v", err)
	}
}

func TestTwilioTransportErrors(t *testing.T) {
	t.Parallel()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>bad gateway</html>")
	}))
	defer html.Close()
	tw, _ := NewTwilio(TwilioConfig{BaseURL: html.URL, AccountSID: "AC1", AuthToken: "t", From: "+15005550006"})
	var te *TwilioError
	if err := tw.SendSMS(context.Background(), SMS{To: "+14155550123", Body: "b"}); !errors.As(err, &te) || te.HTTPStatus != 502 || !strings.Contains(te.Message, "bad gateway") {
		t.Errorf("non-JSON error: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	tw, _ = NewTwilio(TwilioConfig{BaseURL: slow.URL, AccountSID: "AC1", AuthToken: "t", From: "+1", Timeout: 100 * time.Millisecond})
	if err := tw.SendSMS(context.Background(), SMS{To: "+14155550123", Body: "b"}); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("slow server: %v", err)
	}
	for _, cfg := range []TwilioConfig{
		{AccountSID: "AC1", From: "+1"},
		{AccountSID: "AC1", AuthToken: "t"},
		{AccountSID: "AC1", AuthToken: "t", From: "+1", MessagingServiceSID: "MG1"},
		{AccountSID: "AC1", AuthToken: "t", From: "+1", BaseURL: "ftp://x"},
	} {
		if _, err := NewTwilio(cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}
