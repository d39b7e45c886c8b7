package judge

import "testing"

// TestOfflineMisreadings covers the misreadings of issue 23 in general
// form, with sentences written for the test. Each row names the verdict
// the judge must not give; "want" is the verdict it gives instead.
func TestOfflineMisreadings(t *testing.T) {
	cases := []struct {
		name, claim, source, want string
	}{
		{"unit glued to a figure", "The prototype weighs 2.3 kg.",
			"The engineers said the prototype weighs 2.3kg and runs for an hour.", VerdictSupported},
		{"glued unit, other figure", "The prototype weighs 4.1 kg.",
			"The engineers said the prototype weighs 2.3kg and runs for an hour.", VerdictUnsupported},
		{"dotted date", "The treaty was signed on 11 June 2003 in Oslo.",
			"Oslo, 2003.06.11. The treaty was signed today in Oslo by both ministers.", VerdictSupported},
		{"day-first dotted date", "The treaty was signed on 11 June 2003 in Oslo.",
			"Oslo, 11.06.2003. The treaty was signed today in Oslo by both ministers.", VerdictSupported},
		{"ordinal day", "The bridge opened to traffic on 12 November 1998.",
			"Opening day. The bridge opened to traffic on the 12th November 1998 after four years of work.", VerdictSupported},
		{"ordinal day in the claim", "The bridge opened to traffic on 12th November 1998.",
			"Opening day. The bridge opened to traffic on 12 November 1998 after four years of work.", VerdictSupported},
		{"May the month is no hedge", "The council approved the budget in May 2019.",
			"Council minutes, 2019. In May the council approved the budget after a long debate.", VerdictSupported},
		{"last year against the dateline", "The museum welcomed two million visitors in 2017.",
			"Published 3 March 2018. The museum welcomed two million visitors last year, its director said.", VerdictSupported},
		{"name with a bang", "Panic! at the Disco headlined the festival in 2016.",
			"The 2016 festival was headlined by Panic! At the Disco, who played for two hours.", VerdictSupported},
	}
	for _, c := range cases {
		o := judgeOffline(c.claim, c.source)
		if o.verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (%s)", c.name, o.verdict, c.want, o.rationale)
		}
	}
}

func TestJoinNameBangs(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"The band Panic! At the Disco played. Then it rained.", 2},
		{"Shares of Yahoo! Inc rose. Then they fell.", 2},
		{"We won! The crowd cheered.", 2},
		{"Great! Everyone agreed.", 2},
	} {
		if got := len(splitUnits(c.text)); got != c.want {
			t.Errorf("%q: %d units, want %d", c.text, got, c.want)
		}
	}
}

// TestOfflineNegationScope: a negation is read by polarity in the one
// sentence that states the claim.
func TestOfflineNegationScope(t *testing.T) {
	cases := []struct {
		name, claim, source string
	}{
		{"paraphrased denial", "The auction of the castle attracted no bids.",
			"Heritage sale. The auction of the castle failed to attract a single bid, the agents said."},
		{"denial in the next sentence", "The council approved the stadium budget for the harbour district.",
			"The council approved the stadium budget for the harbour on Monday. " +
				"It did not approve the harbour budget for roads. Work starts in the district soon."},
	}
	for _, c := range cases {
		if o := judgeOffline(c.claim, c.source); o.verdict == VerdictUnsupported {
			t.Errorf("%s: %s", c.name, o.rationale)
		}
	}
}

// TestOfflineNamesNotNames: acronyms spelled out on the other side and
// degree names are not names the page lacks.
func TestOfflineNamesNotNames(t *testing.T) {
	cases := []struct {
		name, claim, source string
	}{
		{"acronym spelled out on the page", "The WHO declared the outbreak over in June 2016.",
			"Geneva, 2016. The World Health Organization declared the outbreak over in June 2016, ending a long emergency."},
		{"name abbreviated on the page", "The World Health Organization declared the outbreak over in June 2016.",
			"Geneva, 2016. The WHO declared the outbreak over in June 2016, ending a long emergency."},
		{"degree for a doctorate", "Okafor earned a PhD in chemistry from Leeds in 1994.",
			"Profile. Okafor earned a doctorate in chemistry from Leeds in 1994 and joined the faculty."},
	}
	for _, c := range cases {
		if o := judgeOffline(c.claim, c.source); o.verdict != VerdictSupported {
			t.Errorf("%s: %s %s", c.name, o.verdict, o.rationale)
		}
	}
}

// TestOfflineFigureElsewhere: a figure the page gives for another
// quantity, far from the claim's words, does not confirm the claim.
func TestOfflineFigureElsewhere(t *testing.T) {
	claim := "The new hospital wing has 450 beds for patients."
	source := "The new hospital wing opened on Monday with beds for patients from the whole region. " +
		"The wing was designed by a local firm. Construction took three years. " +
		"The city council met twice about the budget. Parking was expanded as well. " +
		"Last winter, 450 volunteers helped at the flu clinic downtown."
	if o := judgeOffline(claim, source); o.verdict == VerdictSupported {
		t.Errorf("figure for another quantity confirmed the claim: %s", o.rationale)
	}
	near := "The new hospital wing opened on Monday with 450 beds for patients from the whole region."
	if o := judgeOffline(claim, near); o.verdict != VerdictSupported {
		t.Errorf("figure next to its quantity: %s %s", o.verdict, o.rationale)
	}
}

// TestOfflineAccents: a name written with or without its accents is one
// name.
func TestOfflineAccents(t *testing.T) {
	claim := "Jurgen Klopp signed a new contract with Liverpool in 2019."
	source := "Club news, 2019. Jürgen Klopp signed a new contract with Liverpool, the club said."
	if o := judgeOffline(claim, source); o.verdict != VerdictSupported {
		t.Errorf("%s %s", o.verdict, o.rationale)
	}
}
