package textkit

import (
	"reflect"
	"testing"
)

func TestPorterStem(t *testing.T) {
	// Examples from Porter (1980) and the reference vocabulary.
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil",
	} {
		if got := porterStem(in); got != want {
			t.Errorf("porterStem(%q) = %q, want %q", in, got, want)
		}
	}
	for _, w := range []string{"a", "is", "naïve", "x1"} {
		if got := porterStem(w); got != w {
			t.Errorf("porterStem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestStemFolds(t *testing.T) {
	for in, want := range map[string]string{"organisation": "organ", "organization": "organ", "regularly": "regular", "recognised": "recogn"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSentences(t *testing.T) {
	text := "Dr. Smith arrived at 3.30 p.m. on Monday. The U.S. team won! Did it? Yes.\n\nHeading\nA new line starts here, and\nthis one continues. 文章です。次の文。 \"Quoted.\" Next (e.g. this) follows."
	var got []string
	for _, sp := range Sentences(text) {
		got = append(got, text[sp.Start:sp.End])
	}
	want := []string{"Dr. Smith arrived at 3.30 p.m. on Monday.", "The U.S. team won!", "Did it?", "Yes.", "Heading",
		"A new line starts here, and\nthis one continues.", "文章です。", "次の文。", "\"Quoted.\"", "Next (e.g. this) follows."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences:\n got %q\nwant %q", got, want)
	}
}

func TestSentenceEndMarks(t *testing.T) {
	src := []byte("It rose.[1] Next one.")
	mark := func(j int) (int, bool) {
		if j == 8 {
			return 11, true
		}
		return 0, false
	}
	if end, ok := SentenceEnd(src, 7, 1, len(src), mark); !ok || end != 11 {
		t.Errorf("SentenceEnd with a mark = %d %v, want 11 true", end, ok)
	}
	if _, ok := SentenceEnd(src, 7, 1, len(src), nil); ok {
		t.Error("without marks a full stop glued to '[' is not a sentence end")
	}
}

func TestWordsAndFold(t *testing.T) {
	if got := WordList("Müller's café, 2019—São Paulo"); !reflect.DeepEqual(got, []string{"muller", "s", "cafe", "2019", "sao", "paulo"}) {
		t.Errorf("WordList = %q", got)
	}
	if !Stop("the") || Stop("not") || Stop("before") {
		t.Error("Stop: negation and order words must not be stop words")
	}
}
