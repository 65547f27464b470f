package notify

import (
	"html/template"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// codeInText finds the one-time code in a message's text, as the OTP messages word it ("… code is 123456", "code:
// ABC123"), so that the inbox page can show it large with a copy button.
var codeInText = regexp.MustCompile(`(?i)\bcode(?:\s+is)?:?\s+([0-9A-Z]{4,12})\b`)

// inboxEntry is a message as the inbox page shows it.
type inboxEntry struct {
	OutboxEntry
	Code string
}

// inboxPage is the dev inbox for a person: newest first, each code large with a copy button. It loads nothing from
// anywhere; its only script copies a code.
var inboxPage = template.Must(template.New("inbox").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sigil dev inbox</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f5f6f8;color:#17202a}
header{background:#17202a;color:#fff;padding:.75rem 1.25rem}header b{letter-spacing:.04em}
main{max-width:760px;margin:0 auto;padding:1rem}
.msg{background:#fff;border:1px solid #dde2e8;border-radius:10px;padding:1rem;margin-bottom:1rem}
.meta{color:#5d6b7a;font-size:.85rem}.subject{font-weight:600;margin:.25rem 0 .5rem}
.code{display:flex;gap:.75rem;align-items:center;margin:.5rem 0}
.code code{font-size:1.6rem;letter-spacing:.15em;background:#eef2ff;padding:.2rem .6rem;border-radius:6px}
button{font:inherit;padding:.35rem .8rem;border-radius:8px;border:1px solid #dde2e8;background:#fff;cursor:pointer}
pre{white-space:pre-wrap;font-size:.85rem;color:#334}
.empty{color:#5d6b7a}
</style></head><body>
<header><b>Sigil</b> dev inbox: every OTP message this dev stack sent, newest first (dev mode only)</header>
<main>
{{range .}}<article class="msg">
<div class="meta">{{.Kind}} to <b>{{.To}}</b>{{if .From}} from {{.From}}{{end}} · {{.SentAt.Format "2006-01-02 15:04:05 MST"}}</div>
{{if .Subject}}<div class="subject">{{.Subject}}</div>{{end}}
{{if .Code}}<div class="code"><code>{{.Code}}</code><button type="button" data-code="{{.Code}}">Copy</button></div>{{end}}
<pre>{{.Text}}</pre>
</article>
{{else}}<p class="empty">No messages yet. Start a login with an e-mail or SMS OTP and reload.</p>
{{end}}</main>
<script>
for (const b of document.querySelectorAll("button[data-code]")) {
  b.addEventListener("click", async () => { await navigator.clipboard.writeText(b.dataset.code); b.textContent = "Copied"; });
}
</script>
</body></html>
`))

// wantsHTML reports whether a request comes from a browser that asked for a page rather than data.
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// serveInbox renders the inbox page.
func serveInbox(w http.ResponseWriter, entries []OutboxEntry) {
	page := make([]inboxEntry, 0, len(entries))
	for _, e := range slices.Backward(entries) {
		entry := inboxEntry{OutboxEntry: e}
		if m := codeInText.FindStringSubmatch(e.Text); m != nil {
			entry.Code = m[1]
		}
		page = append(page, entry)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'")
	_ = inboxPage.Execute(w, page)
}
