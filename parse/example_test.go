package parse_test

import (
	"context"
	"fmt"

	"github.com/citegate/citegate/parse"
)

func ExampleSources() {
	wave := []byte(`## Findings

Background: https://findings.example.com/not-a-source

## Sources

- [Report](https://Example.com/report.pdf)
- https://en.wikipedia.org/wiki/Foo_(bar).
- <https://example.org/a?utm_source=x&id=1>
`)
	links, err := parse.Sources(context.Background(), wave)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range links {
		fmt.Println(l.Line, l.Kind, l.URL)
	}
	// Output:
	// 7 inline https://example.com/report.pdf
	// 8 bare https://en.wikipedia.org/wiki/Foo_(bar)
	// 9 autolink https://example.org/a?utm_source=x&id=1
}

func ExampleSourcesWith() {
	wave := []byte(`## 9. References

### Papers

- https://doi.org/10.1000/abc

## 10. Appendix

https://appendix.example.com/not-a-source
`)
	links, err := parse.SourcesWith(context.Background(), wave, parse.SourcesOptions{Titles: []string{"References"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range links {
		fmt.Println(l.Line, l.Kind, l.URL)
	}
	// Output:
	// 5 bare https://doi.org/10.1000/abc
}

func ExampleNormalize() {
	n, err := parse.Normalize("https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)
	fmt.Println(parse.CID(n))
	// Output:
	// https://example.com/path?a=1&b=2
	// cid_94ab2087f4c4ce19d248cfbab9e2b19cc5065e443510f7f37cab7347aaa7df0c
}
