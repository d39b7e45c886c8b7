package judge

import "strings"

// The lexical judge's word lists. They are deliberately small and visible:
// the judge is meant to be read and argued with, not trusted blindly.

// lightWords are reporting and hedging words: a claim says "a study found
// that X", its source says "we show X". They count for little.
var lightWords = setOf(`according study studies research researcher researchers report reported
	reports reporting found find finds finding findings show shows showed shown showing paper article
	author authors suggest suggests suggested indicate indicates indicated say says said state states
	stated note notes noted claim claims claimed data result results evidence analysis published
	publish conclude concluded concludes describe described describes explain explained new recent
	recently team scientists scientist experts expert official officials demonstrate demonstrated
	demonstrates reveal revealed reveals discover discovered discovers observe observed observes
	dollar dollars euro euros pound pounds usd eur gbp yen yuan rupees`)

// negationCues flip a statement. A word ending in "n't" is one too.
var negationCues = setOf(`not no never none nobody nothing neither nor without cannot cant
	denied deny denies denying false failed fail fails unable refuted refute refutes lacked lacks
	lack`)

// negationNonCue are cue words that do not negate when followed by the
// given word: "not only", "no longer" does negate, so it is absent.
var negationNonCue = map[string]string{"not": "only|just|merely"}

// concepts fold synonyms (and irregular forms a stemmer misses) into one
// key; opposite names the concept that contradicts it. Each word is
// matched as written and by its stem.
var conceptTable = []struct {
	key, opposite string
	words         string
}{
	// Change and comparison share a concept: "rose" and "higher", "cut"
	// and "fewer" make the same claim about a figure.
	{"INCREASE", "DECREASE", `increase increased increases increasing rise rises rose risen rising grow grows
		grew grown growing growth climb climbed climbs jump jumped surge surged soar soared upsurge raise raised
		more higher greater larger bigger exceed exceeded exceeds above`},
	{"DECREASE", "INCREASE", `decrease decreased decreases decreasing decline declined declines declining
		fall falls fell fallen falling drop dropped drops dropping reduce reduced reduces reducing
		reduction cut cuts shrink shrank shrunk plunge plunged plummet plummeted diminish diminished dip dipped
		slump slumped lessen lessened lowers lowered lowering eliminate eliminated eliminates slash slashed
		less fewer lower smaller below`},
	{"BEFORE", "AFTER", `before prior earlier preceding previously`},
	{"AFTER", "BEFORE", `after later following subsequent subsequently`},
	{"APPROVE", "REJECT", `approve approved approves approval authorize authorized authorise authorised
		authorization authorisation accept accepted accepts acceptance adopt adopted endorse endorsed
		clearance license licensed pass passed passes`},
	{"REJECT", "APPROVE", `reject rejected rejects rejection refuse refused refuses veto vetoed`},
	{"UPHOLD", "OVERTURN", `uphold upheld upholds affirm affirmed affirms`},
	{"OVERTURN", "UPHOLD", `overturn overturned overturns struck reverse reversed reverses annul
		annulled invalidate invalidated vacate vacated`},
	{"ALLOW", "PROHIBIT", `allow allowed allows permit permitted permits enable enabled enables legalize
		legalized legalise legalised`},
	{"PROHIBIT", "ALLOW", `ban banned bans prohibit prohibited prohibits forbid forbade forbidden outlaw
		outlawed barred`},
	{"WIN", "LOSE", `win wins won winning victory victorious`},
	{"LOSE", "WIN", `lose loses lost losing defeat defeated`},
	{"IMPROVE", "WORSEN", `improve improved improves improvement better enhance enhanced boost boosted`},
	{"WORSEN", "IMPROVE", `worsen worsened worse deteriorate deteriorated impair impaired`},
	{"EFFECTIVE", "INEFFECTIVE", `effective efficacious efficacy effectiveness`},
	{"INEFFECTIVE", "EFFECTIVE", `ineffective useless`},
	{"SUPPORT", "OPPOSE", `support supported supports favor favored favour favoured backed`},
	{"OPPOSE", "SUPPORT", `oppose opposed opposes opposition`},
	{"START", "END", `begin began begun beginning start started starts launch launched commence
		commenced initiate initiated founded establish established`},
	{"END", "START", `end ended ends finish finished conclude terminate terminated halt halted cease
		ceased discontinue discontinued closed`},
	{"BUY", "SELL", `buy bought buys purchase purchased acquire acquired acquires acquisition`},
	{"SELL", "BUY", `sell sold sells sale divest divested`},
	{"DIE", "SURVIVE", `die died dies dying dead death deaths kill killed kills fatal fatalities fatality
		mortality perish perished deceased`},
	{"SURVIVE", "DIE", `survive survived survives survival alive`},
	{"BIG", "SMALL", `large big huge major substantial considerable massive vast`},
	{"SMALL", "BIG", `small little minor slight modest tiny`},
	{"FAST", "SLOW", `fast quick quickly rapid rapidly swift swiftly`},
	{"SLOW", "FAST", `slow slowly sluggish`},
	{"MAJORITY", "MINORITY", `majority`},
	{"MINORITY", "MAJORITY", `minority`},
	{"CAUSE", "", `cause caused causes causing trigger triggered triggers induce induced induces`},
	{"LINK", "", `link linked links association associated associations correlation correlated
		correlates relationship`},
	{"RISK", "", `risk risks likelihood chance chances probability odds`},
	{"CONSUME", "", `consume consumed consumes consumption drink drinks drinking intake eat eats eating`},
	{"USE", "", `use used uses using utilize utilized utilise utilised employ employed`},
	{"HELP", "", `help helped helps aid aided assist assisted`},
	{"NEED", "", `need needed needs require required requires requirement necessary`},
	{"CREATE", "", `create created creates invent invented invents devise devised develop developed
		develops`},
	{"BUILD", "", `build built builds construct constructed construction erect erected`},
	{"WRITE", "", `write wrote written writes compose composed penned`},
	{"LIVE", "", `live lived lives reside resided resides inhabit inhabited dwell`},
	{"CAR", "", `car cars automobile automobiles vehicle vehicles`},
	{"DRUG", "", `drug drugs medication medications medicine medicines`},
	{"DOCTOR", "", `doctor doctors physician physicians clinician clinicians`},
	{"CHILD", "", `child children kid kids youngster youngsters`},
	{"PEOPLE", "", `people person persons individuals individual humans`},
	{"COMPANY", "", `company companies firm firms corporation corporations`},
	{"JOB", "", `job jobs position positions`},
	{"LAW", "", `law laws legislation statute statutes`},
	{"GLOBAL", "", `global globally worldwide world`},
	{"TOTAL", "", `total overall combined altogether`},
	{"ANNUAL", "", `annual annually yearly`},
}

// numberWords are spelled-out numbers read as figures. "one" is left out:
// it is mostly a pronoun.
var numberWords = map[string]float64{
	"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	"dozen": 12, "hundred": 100,
}

// multipliers scale the figure before them ("1.2 million").
var multipliers = map[string]float64{
	"thousand": 1e3, "million": 1e6, "millions": 1e6, "billion": 1e9, "billions": 1e9,
	"trillion": 1e12, "bn": 1e9, "mn": 1e6,
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

type concept struct{ key, opposite string }

// conceptOf maps a word and a stem to its concept.
var conceptOf = func() map[string]concept {
	m := map[string]concept{}
	for _, c := range conceptTable {
		for _, w := range strings.Fields(c.words) {
			cc := concept{c.key, c.opposite}
			m[w] = cc
			if s := stemWord(w); s != w {
				if _, taken := m["~"+s]; !taken {
					m["~"+s] = cc
				}
			}
		}
	}
	return m
}()

// lookupConcept returns the concept of a lower-case word, by the word
// first and its stem second.
func lookupConcept(w, stem string) (concept, bool) {
	if c, ok := conceptOf[w]; ok {
		return c, true
	}
	c, ok := conceptOf["~"+stem]
	return c, ok
}
