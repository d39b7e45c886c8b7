package classify

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"
)

// bigPage builds a realistic ~2 MB article page: the news fixture with its
// body repeated, a large inline state script, many links and tables.
func bigPage(tb testing.TB) []byte {
	tb.Helper()
	base, err := os.ReadFile("testdata/news_article.html")
	if err != nil {
		tb.Fatal(err)
	}
	i := bytes.Index(base, []byte("</article>"))
	var filler bytes.Buffer
	filler.WriteString(`<script>window.__STATE__=`)
	filler.WriteString(strings.Repeat(`{"id":123456,"type":"teaser","headline":"Lorem ipsum dolor sit amet","url":"/section/2025/01/01/story"},`, 3000))
	filler.WriteString(`{}</script>`)
	para := `<div class="block"><p>Recyclers in <a href="/tag/europe">Europe</a> and <em>North America</em> reported steady growth in collected volumes of spent lithium-ion batteries, with <strong>black mass</strong> output rising as new shredding lines came online.</p>` +
		`<table class="data"><tr><td>2023</td><td>38%</td></tr><tr><td>2024</td><td>41%</td></tr></table><ul class="links"><li><a href="/a">One</a></li><li><a href="/b">Two</a></li></ul></div>` + "\n"
	for filler.Len() < 2<<20-len(base) {
		filler.WriteString(para)
	}
	out := append([]byte{}, base[:i]...)
	out = append(out, filler.Bytes()...)
	return append(out, base[i:]...)
}

// scriptHeavyPage is the more common shape of a 2 MB page: an ordinary
// article plus a framework's inline state blob and inline CSS.
func scriptHeavyPage(tb testing.TB) []byte {
	tb.Helper()
	base, err := os.ReadFile("testdata/news_article.html")
	if err != nil {
		tb.Fatal(err)
	}
	i := bytes.Index(base, []byte("</body>"))
	var blob bytes.Buffer
	blob.WriteString(`<style>` + strings.Repeat(`.c-123{display:flex;margin:0 auto;padding:4px 8px}`, 4000) + `</style>`)
	blob.WriteString(`<script id="__NEXT_DATA__" type="application/json">{"props":{"items":[`)
	for blob.Len() < 2<<20-len(base) {
		blob.WriteString(`{"id":"a1b2c3","headline":"Lorem <b>ipsum</b> dolor sit amet","href":"/x/y","tags":["a","b"]},`)
	}
	blob.WriteString(`{}]}}</script>`)
	out := append([]byte{}, base[:i]...)
	out = append(out, blob.Bytes()...)
	return append(out, base[i:]...)
}

func BenchmarkClassify(b *testing.B) {
	c := Citation{LinkText: "EU battery recycling rates climb as lithium targets loom"}
	page := func(body []byte) Page {
		return Page{
			RequestedURL: "https://www.dailyplanet.example/business/2025/03/14/eu-battery-recycling-rates-lithium",
			StatusCode:   200,
			Header:       http.Header{"Content-Type": {"text/html; charset=utf-8"}},
			Body:         body,
			ContentType:  "text/html; charset=utf-8",
		}
	}
	small, err := os.ReadFile("testdata/news_article.html")
	if err != nil {
		b.Fatal(err)
	}
	bodies := []struct {
		name string
		body []byte
	}{
		{"2MB-dense-markup", bigPage(b)},
		{"2MB-script-heavy", scriptHeavyPage(b)},
		{"5KB-article", small},
	}
	for _, bd := range bodies {
		p := page(bd.body)
		for _, tier := range []Tier{Basic, Standard, Thorough} {
			b.Run(bd.name+"/"+string(tier), func(b *testing.B) {
				b.SetBytes(int64(len(bd.body)))
				b.ReportAllocs()
				for b.Loop() {
					if v := Classify(p, c, tier); v.Outcome != Valid {
						b.Fatalf("got %v %q", v.Outcome, v.Reason)
					}
				}
			})
		}
	}
}
