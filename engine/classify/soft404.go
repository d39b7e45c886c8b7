package classify

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Soft 404s: a page that answers 200 but says the cited page does not
// exist. A language model that invents a URL on a real site is usually
// answered this way, so these signals run at the standard tier (and at
// basic when a body was read); they are chosen for precision:
//
//   - server and framework error templates whose status is 404 (Tomcat and
//     JBoss error reports, IIS detailed errors, ASP.NET "The resource cannot
//     be found.", Spring's Whitelabel page, Express's "Cannot GET", object
//     stores' NoSuchKey and BlobNotFound, …) and thin bodies that state
//     their own status ("HttpStatusCode: 404", {"status":404});
//   - hosting placeholders that stand where a site used to be (parked or
//     for-sale domains, default server pages, "there isn't a GitHub Pages
//     site here");
//   - a title or one of the page's own headings (lead.go) that announces a
//     missing page, in some forty languages: a segment of the title that is
//     a not-found phrase plus nothing but error words ("404 Oops! Page not
//     Found. - Peach County", "Stránka nenájdená – Blog"), never a headline
//     that merely contains one ("Not found: the search for flight 370
//     continues"); a title that calls the link broken ("404 Felaktig
//     länk") next to a 404 or on a thin page;
//   - a not-found sentence ("the page you're looking for can't be found",
//     "Stránka nebyla nalezena") in the page's own prose: anywhere on a thin
//     page, in the lead of a page of ordinary length, in the opening of a
//     longer one (a not-found message over a product grid). Quoted
//     material — code, block quotes, quotation marks — is never read: a
//     guide to custom 404 pages shows the sentence as an example.
//
// Guards: a citation whose link text or URL itself names a not-found page
// (MDN's "404 Not Found" reference, say) is taken at its word; a long page
// that declares itself an article is judged by none of the phrase rules.

// Where sentence rules look, in runes of readable text.
const (
	leadRunes     = 1000 // the lead: the start of the text (and of the main element)
	leadMaxPage   = 5000 // a not-found sentence in the lead counts on a page up to this size
	soft404Thin   = 1500 // a not-found sentence anywhere counts on a page this thin
	titleSiteMax  = 8    // words of a title segment around the not-found one (a site name)
	headingsShown = 3    // headings read
)

// notFoundCores are title segments (or their core) that announce a
// missing page, folded when the package loads.
var notFoundCores = phrases(
	// English.
	"page not found", "not found", "notfound", "pagenotfound", "file not found", "document not found", "article not found",
	"post not found", "story not found", "content not found", "resource not found", "site not found", "nothing found",
	"page does not exist", "page doesn't exist", "page cannot be found", "page can't be found", "page could not be found",
	"page couldn't be found", "page no longer exists", "page is missing", "page missing", "missing page", "page lost",
	"lost page", "something lost", "no such page", "we can't find that page", "we couldn't find that page",
	"we can't find the page", "we couldn't find the page", "that page can't be found", "this page doesn't exist",
	"this page does not exist", "page not available",
	// German, French, Spanish, Portuguese, Italian, Dutch.
	"seite nicht gefunden", "nicht gefunden", "seite existiert nicht", "datei nicht gefunden", "seite nicht vorhanden",
	"page introuvable", "introuvable", "page non trouvee", "page inexistante", "cette page n'existe pas", "page n'existe pas",
	"pagina no encontrada", "no encontrada", "pagina no existe", "pagina inexistente", "no se encontro la pagina",
	"pagina nao encontrada", "nao encontrada", "pagina nao existe",
	"pagina non trovata", "non trovata", "pagina non esiste", "pagina inesistente",
	"pagina niet gevonden", "niet gevonden", "pagina bestaat niet",
	// Polish, Czech, Swedish, Danish, Norwegian, Finnish, Hungarian, Romanian, Turkish.
	"nie znaleziono strony", "strona nie zostala znaleziona", "strona nie istnieje", "nie znaleziono", "strony nie znaleziono",
	"nie ma takiej strony", "strona nie znaleziona", "brak strony",
	"stranka nenalezena", "stranka nebyla nalezena", "stranka neexistuje", "nenalezeno", "nenalezena",
	"sidan kunde inte hittas", "sidan hittades inte", "sidan finns inte", "sidan saknas", "hittades inte", "kunde inte hittas",
	"siden blev ikke fundet", "siden findes ikke", "siden finnes ikke", "siden ble ikke funnet", "side ikke funnet", "side ikke fundet",
	"sivua ei loytynyt", "sivua ei loydy", "az oldal nem talalhato", "oldal nem talalhato", "nem talalhato",
	"pagina nu a fost gasita", "pagina nu exista", "sayfa bulunamadi", "bulunamadi",
	// Russian, Ukrainian, Greek.
	"страница не найдена", "не найдена", "страница не существует", "страницы не существует", "такой страницы нет", "не найдено",
	"сторінку не знайдено", "сторінка не знайдена", "не знайдено", "η σελιδα δεν βρεθηκε", "σελιδα δεν βρεθηκε",
	// Chinese, Japanese, Korean.
	"页面不存在", "页面未找到", "找不到页面", "页面找不到", "页面没有找到", "网页不存在", "網頁不存在", "頁面不存在", "找不到網頁",
	"找不到该页面", "您访问的页面不存在", "未找到页面", "页面丢失", "ページが見つかりません", "ページは見つかりませんでした",
	"ページが存在しません", "ページは存在しません", "お探しのページが見つかりません", "お探しのページは見つかりませんでした",
	"페이지를 찾을 수 없습니다", "페이지를 찾을 수 없음",
	// Indonesian, Vietnamese, Arabic, Hebrew, Catalan.
	"halaman tidak ditemukan", "khong tim thay trang", "trang khong ton tai", "الصفحة غير موجودة", "لم يتم العثور على الصفحة",
	"הדף לא נמצא", "העמוד לא נמצא", "pagina no trobada",
	// The titles WordPress and common themes use for a 404 in further
	// languages (core's "Page not found" and its usual variants).
	// Slovak, Estonian, Lithuanian, Latvian, Slovenian, Croatian/Bosnian/
	// Serbian (Latin), Serbian and Macedonian (Cyrillic), Bulgarian.
	"stranka nenajdena", "stranka sa nenasla", "stranka nebola najdena", "stranka neexistuje", "nenajdena",
	"lehte ei leitud", "lehekulge ei leitud", "lehte ei ole olemas", "ei leitud",
	"puslapis nerastas", "puslapis nerasta", "puslapio nerasta", "puslapis neegzistuoja", "nerastas",
	"lapa nav atrasta", "lapa netika atrasta", "lapa neeksiste", "nav atrasta",
	"stran ni bila najdena", "strani ni mogoce najti", "stran ne obstaja", "stran ni najdena",
	"stranica nije pronadena", "stranica nije pronadjena", "stranica nije nadena", "stranica ne postoji", "nije pronadena",
	"страница није пронађена", "страница не постоји", "страницата не е пронајдена", "страницата не постои",
	"страницата не е намерена", "страницата не е открита", "страницата не съществува", "не е намерена",
	// Catalan, Icelandic, Albanian, Azerbaijani, Kazakh.
	"no s'ha trobat la pagina", "pagina no existeix", "sida fannst ekki", "faqja nuk u gjet", "sehife tapilmadi",
	"səhifə tapilmadi", "бет табылмады",
	// Hindi, Bengali, Urdu, Persian, Tamil.
	"पृष्ठ नहीं मिला", "पेज नहीं मिला", "पृष्ठ नहीं मिल सका", "पृष्ठ मौजूद नहीं है", "পৃষ্ঠা পাওয়া যায়নি", "পেজ পাওয়া যায়নি",
	"পৃষ্ঠাটি পাওয়া যায়নি", "পাতাটি খুঁজে পাওয়া যায়নি", "صفحہ نہیں ملا", "صفحه پیدا نشد", "صفحه یافت نشد", "صفحه مورد نظر یافت نشد",
	"صفحه وجود ندارد", "பக்கம் காணப்படவில்லை",
	// Malay, Filipino, Swahili, Thai.
	"halaman tidak dijumpai", "halaman tidak ditemui", "laman tidak dijumpai", "hindi nahanap ang pahina",
	"hindi matagpuan ang pahina", "walang nahanap na pahina", "pahina hindi nahanap", "ukurasa haupatikani",
	"ukurasa haukupatikana", "ukurasa haujapatikana", "ไม่พบหน้า", "ไม่พบหน้าเว็บ", "ไม่พบหน้าที่คุณต้องการ",
	"ไม่พบหน้าที่ต้องการ", "ไม่พบหน้าที่คุณร้องขอ", "ไม่พบหน้าเพจ",
)

// brokenLinkCores are title segments that call the followed link broken or
// invalid ("404 Felaktig länk"). A headline may say as much about another
// subject ("Broken link" is an encyclopedia entry too), so they count only
// with a 404 in the title or on a thin page.
var brokenLinkCores = phrases(
	"broken link", "invalid link", "dead link", "bad link", "link is broken", "link is invalid",
	"felaktig lank", "trasig lank", "ogiltig lank", "fehlerhafter link", "ungultiger link", "defekter link", "toter link",
	"link ungultig", "ugyldig lenke", "ugyldig link", "ugyldigt link", "odelagt lenke", "dod lenke", "dodt link",
	"virheellinen linkki", "rikkinainen linkki", "ongeldige link", "ongeldige koppeling", "kapotte link", "dode link",
	"lien invalide", "lien brise", "lien mort", "enlace roto", "enlace no valido", "link non valido", "link interrotto",
	"link quebrado", "link invalido", "nieprawidlowy link", "neplatny odkaz", "neplatny link",
)

// notFoundFiller may surround a not-found core in a title segment: error
// words, apologies and page words in the languages above.
var notFoundFiller = words2set(`error errors http status code oops ooops oopsie whoops sorry uh oh hmm ups upss upsss ouch
	yikes the this that a we re page file sadly unfortunately detailed
	fehler leider erreur desole oups errore erro fout helaas blad przepraszamy ups chyba bohuzel fel tyvarr feil fejl
	beklager hata virhe hiba eroare greska ошибка помилка σφαλμα 错误 エラー 오류 خطأ שגיאה lo siento pagina seite strona
	stranka sidan страница viga klaida kluda napaka грешка त्रुटि ত্রুটি خطا ralat hitilafu ข้อผิดพลาด ojej hoppla
	lehekulg puslapis lapa stran stranica страницата pahina ukurasa`)

// notFoundCodes are the statuses that make an error template a soft 404.
func notFoundCode(code int) bool { return code == 404 || code == 410 }

// statusPart reports a title segment that is only an HTTP status — "404",
// "Error 404", "HTTP 404.0" — and returns the code.
func statusPart(seg string) (int, bool) {
	code := 0
	for _, w := range strings.Fields(seg) {
		switch {
		case len(w) == 3 && allDigits(w) && w[0] >= '4' && w[0] <= '5' && code == 0:
			code, _ = strconv.Atoi(w)
		case allDigits(w) && code != 0 && len(w) <= 2: // "404.0" folds to "404 0"
		case notFoundFiller[w], statusReasonWords[w]:
		default:
			return 0, false
		}
	}
	return code, code != 0
}

// statusReasonWords are the words of HTTP reason phrases ("503 Service
// Unavailable"), which may follow a status code in a title.
var statusReasonWords = words2set(`bad request unauthorized authorization required payment forbidden not found method allowed
	acceptable timeout time out conflict gone precondition failed too many requests internal server service unavailable
	temporarily gateway i'm a teapot unavailable for legal reasons access denied`)

// notFoundTitle reports a title or heading that announces a missing page
// (see the package rules above).
func notFoundTitle(t string) bool { return titleSaysNotFound(t, false) }

// titleSaysNotFound is notFoundTitle; on a thin page a title that calls
// the link broken counts too, as it does anywhere next to a 404.
func titleSaysNotFound(t string, thin bool) bool {
	// "Example (404)": a status in parentheses at the end of the title.
	if low := strings.ToLower(collapse(t)); strings.HasSuffix(low, "(404)") || strings.HasSuffix(low, "[404]") {
		return true
	}
	parts := titleParts(t)
	has404 := false
	for _, seg := range parts {
		has404 = has404 || strings.Contains(" "+seg+" ", " 404 ")
	}
	hit := -1
	for i, seg := range parts {
		if code, ok := statusPart(seg); ok && notFoundCode(code) {
			hit = i
			break
		}
		if len(strings.Fields(seg)) <= 16 && enSentence(seg) != "" {
			hit = i
			break
		}
		if coreSegment(seg, notFoundCores) || ((thin || has404) && coreSegment(seg, brokenLinkCores)) {
			hit = i
			break
		}
	}
	if hit < 0 {
		return false
	}
	for i, seg := range parts {
		if i != hit && len(strings.Fields(seg)) > titleSiteMax {
			return false
		}
	}
	return true
}

// coreSegment reports a title segment that is one of the cores plus
// nothing but error words and numbers.
func coreSegment(seg string, cores []phrase) bool {
	for _, p := range cores {
		if !p.in(seg) {
			continue
		}
		rest := removePhrase(seg, p)
		extra := 0
		for _, w := range strings.Fields(rest) {
			if !notFoundFiller[w] && !allDigits(w) {
				extra++
			}
		}
		// One stray word is allowed next to an explicit 404 ("404 Page
		// Not Found ss").
		if extra == 0 || (extra == 1 && strings.Contains(" "+rest+" ", " 404 ")) {
			return true
		}
	}
	return false
}

// A not-found sentence, per language: a not-found predicate with a page
// word shortly before it ("the page you are looking for is gone"), or a
// "cannot find" with a page word shortly after ("we couldn't find that
// page"). Words are folded.
type sentenceRule struct {
	pages     wordSet
	post, pre [][]string
}

func rule(pages string, post, pre []string) sentenceRule {
	split := func(list []string) [][]string {
		out := make([][]string, 0, len(list))
		for _, s := range list {
			if f := strings.Fields(fold(s)); len(f) > 0 {
				out = append(out, f)
			}
		}
		return out
	}
	return sentenceRule{pages: words2set(pages), post: split(post), pre: split(pre)}
}

// sentenceRules are the languages with spaces between words.
var sentenceRules = []sentenceRule{
	rule("page pages webpage file document resource url site website article post address",
		[]string{"not found", "cannot be found", "can't be found", "can not be found", "could not be found", "couldn't be found",
			"cant be found", "couldnt be found", "cannot be located", "could not be located", "does not exist", "doesn't exist",
			"doesnt exist", "did not exist", "no longer exists", "no longer exist", "is gone", "is lost", "is missing",
			"has been removed", "has been deleted", "has been taken down", "may have been removed", "might have been removed",
			"may have been moved", "might have been moved", "may have been deleted", "had its name changed",
			"is no longer available", "was removed", "was deleted", "never existed", "has moved or", "moved or deleted",
			"moved or removed"},
		[]string{"can't find", "cannot find", "can not find", "could not find", "couldn't find", "cant find", "couldnt find",
			"unable to find", "can't seem to find", "couldn't locate", "could not locate", "cannot locate", "no such"}),
	rule("seite webseite datei dokument inhalt artikel url",
		[]string{"nicht gefunden", "existiert nicht", "nicht mehr verfugbar", "konnte nicht gefunden werden", "nicht vorhanden",
			"gibt es nicht", "existiert leider nicht", "nicht mehr vorhanden", "wurde entfernt", "wurde geloscht"},
		[]string{"konnten die", "nicht finden"}),
	rule("page fichier document article url contenu",
		[]string{"introuvable", "n'existe pas", "n'existe plus", "non trouvee", "non trouve", "n'a pas ete trouvee",
			"n'a pas pu etre trouvee", "a ete supprimee", "n'est plus disponible"},
		[]string{"impossible de trouver", "ne trouvons pas"}),
	rule("pagina archivo documento articulo url contenido",
		[]string{"no encontrada", "no encontrado", "no existe", "no se encuentra", "no ha sido encontrada", "no se pudo encontrar",
			"ha sido eliminada", "no se ha encontrado"},
		[]string{"no se encontro", "no encontramos", "no pudimos encontrar", "no hemos encontrado"}),
	rule("pagina arquivo ficheiro documento artigo url conteudo",
		[]string{"nao encontrada", "nao encontrado", "nao existe", "nao foi encontrada", "nao foi encontrado", "foi removida",
			"nao pode ser encontrada"},
		[]string{"nao encontramos", "nao conseguimos encontrar"}),
	rule("pagina file documento articolo url contenuto",
		[]string{"non trovata", "non trovato", "non esiste", "non e stata trovata", "non e piu disponibile", "e stata rimossa",
			"inesistente", "non puo essere trovata"},
		[]string{"impossibile trovare", "non riusciamo a trovare"}),
	rule("pagina bestand document artikel url",
		[]string{"niet gevonden", "bestaat niet", "kon niet worden gevonden", "is niet gevonden", "niet meer beschikbaar",
			"bestaat niet meer", "is verwijderd"},
		[]string{"kunnen de", "niet vinden"}),
	rule("strona strony strone stronie plik dokument artykul adres podstrona",
		[]string{"nie zostala znaleziona", "nie istnieje", "nie znaleziona", "nie zostala odnaleziona", "nie znaleziono",
			"nie zostal znaleziony", "zostala usunieta", "nie jest dostepna"},
		[]string{"nie znaleziono", "nie ma takiej", "nie mozemy znalezc", "nie udalo sie znalezc"}),
	rule("stranka stranku stranky soubor dokument clanek",
		[]string{"nenalezena", "nebyla nalezena", "neexistuje", "nebyl nalezen", "nenalezeno", "byla odstranena", "neni dostupna"},
		[]string{"nepodarilo se najit", "jsme nenasli"}),
	rule("sidan sida filen dokumentet artikeln",
		[]string{"kunde inte hittas", "hittades inte", "finns inte", "saknas", "har tagits bort", "finns inte langre"},
		[]string{"hittade inte", "kan inte hitta", "hittar inte"}),
	rule("siden side filen dokumentet",
		[]string{"blev ikke fundet", "findes ikke", "finnes ikke", "ble ikke funnet", "ikke funnet", "ikke fundet", "eksisterer ikke"},
		[]string{"kunne ikke finde", "kunne ikke finne", "finner ikke"}),
	rule("страница страницу страницы файл документ статья",
		[]string{"не найдена", "не найден", "не существует", "не найдено", "была удалена", "удалена"},
		[]string{"не удалось найти", "такой", "не можем найти"}),
	rule("сторінка сторінку сторінки файл документ",
		[]string{"не знайдено", "не знайдена", "не існує", "видалена"},
		[]string{"не вдалося знайти"}),
	rule("sivua sivu sivun tiedostoa",
		[]string{"ei loytynyt", "ei loydy", "ei ole olemassa"}, nil),
	rule("oldal oldalt",
		[]string{"nem talalhato", "nem letezik"}, nil),
	rule("pagina paginii",
		[]string{"nu a fost gasita", "nu exista"}, nil),
	rule("sayfa sayfayi",
		[]string{"bulunamadi", "mevcut degil"}, nil),
	rule("halaman",
		[]string{"tidak ditemukan", "tidak dijumpai", "tidak ada"}, nil),
	rule("σελιδα",
		[]string{"δεν βρεθηκε", "δεν υπαρχει"}, nil),
	// Slovak, Estonian, Lithuanian, Latvian, Slovenian, Croatian/Bosnian/
	// Serbian (Latin), Serbian/Macedonian/Bulgarian (Cyrillic), Catalan,
	// Malay, Filipino, Swahili, Hindi, Bengali, Persian, Urdu.
	rule("stranka stranku stranky subor dokument clanok",
		[]string{"nebola najdena", "sa nenasla", "neexistuje", "nenajdena", "nebol najdeny", "bola odstranena"},
		[]string{"nepodarilo sa najst", "nemozeme najst"}),
	rule("leht lehte lehekulg lehekulge fail",
		[]string{"ei leitud", "ei ole olemas", "ei eksisteeri", "on eemaldatud"}, []string{"ei leidnud"}),
	rule("puslapis puslapio puslapi failas",
		[]string{"nerastas", "nerasta", "neegzistuoja", "buvo pasalintas"}, []string{"nepavyko rasti"}),
	rule("lapa lapu lapas fails",
		[]string{"nav atrasta", "netika atrasta", "neeksiste", "nav pieejama"}, []string{"nevarejam atrast"}),
	rule("stran strani datoteka",
		[]string{"ni bila najdena", "ne obstaja", "ni mogoce najti", "ni najdena"}, nil),
	rule("stranica stranicu stranice datoteka",
		[]string{"nije pronadena", "nije pronadjena", "nije nadena", "ne postoji", "je uklonjena"}, []string{"nismo pronasli"}),
	rule("страница страницу страницата датотека",
		[]string{"није пронађена", "не постоји", "не е намерена", "не е открита", "не съществува", "не е пронајдена", "не постои"}, nil),
	rule("pagina",
		[]string{"no trobada", "no existeix", "no s'ha trobat"}, []string{"no s'ha trobat", "no hem trobat"}),
	rule("halaman laman",
		[]string{"tidak ditemui", "tidak wujud"}, nil),
	rule("pahina",
		[]string{"hindi nahanap", "hindi matagpuan", "ay hindi umiiral"}, []string{"hindi nahanap", "hindi matagpuan", "walang nahanap"}),
	rule("ukurasa",
		[]string{"haupatikani", "haukupatikana", "haujapatikana", "haupo"}, nil),
	rule("पृष्ठ पेज",
		[]string{"नहीं मिला", "नहीं मिल सका", "मौजूद नहीं है"}, nil),
	rule("পৃষ্ঠা পেজ পৃষ্ঠাটি পেজটি পাতাটি",
		[]string{"পাওয়া যায়নি", "খুঁজে পাওয়া যায়নি"}, nil),
	rule("صفحه صفحہ",
		[]string{"پیدا نشد", "یافت نشد", "وجود ندارد", "نہیں ملا"}, nil),
}

// notFoundLoose are phrases of scripts without spaces, and fixed English
// phrases that need no page word.
var notFoundLoose = phrases(
	"页面不存在", "页面未找到", "找不到页面", "页面找不到", "页面没有找到", "网页不存在", "網頁不存在", "頁面不存在", "找不到網頁", "找不到该页面",
	"访问的页面不存在", "未找到页面", "ページが見つかりません", "ページは見つかりませんでした", "ページが存在しません", "ページは存在しません",
	"ページが見つかりませんでした", "페이지를 찾을 수 없습니다", "khong tim thay trang", "trang khong ton tai", "الصفحة غير موجودة",
	"لم يتم العثور على الصفحة", "הדף לא נמצא", "העמוד לא נמצא", "ไม่พบหน้า", "ไม่พบหน้าเว็บ",
	"page not found", "404 not found", "error 404", "404 error", "http 404", "http error 404", "404 page not found",
	"the link you followed may be broken", "the link you followed is broken", "link you clicked may be broken",
	"nothing was found at this location", "nothing found at this location", "page that matches your",
	"the resource cannot be found", "the requested resource is not available", "the requested url was not found",
	"the requested content does not exist",
)

// enSentence is sentence matching restricted to English (titles are
// matched with it too).
func enSentence(f string) string {
	return matchSentence(f, sentenceRules[:1], notFoundLoose)
}

// notFoundSentence finds a not-found sentence in folded text f and returns
// the words that matched.
func notFoundSentence(f string) string {
	return matchSentence(f, sentenceRules, notFoundLoose)
}

func matchSentence(f string, rules []sentenceRule, loose []phrase) string {
	if f == "" {
		return ""
	}
	if p, ok := firstPhrase(f, loose); ok {
		return p
	}
	toks := strings.Fields(f)
	at := func(i int, ph []string) bool {
		if i+len(ph) > len(toks) {
			return false
		}
		for k, w := range ph {
			if toks[i+k] != w {
				return false
			}
		}
		return true
	}
	for i, tok := range toks {
		for _, c := range sentenceIndex[tok] {
			if c.rule >= len(rules) {
				continue // a rule of a language not asked for
			}
			r := &rules[c.rule]
			ph := c.words
			if !at(i, ph) {
				continue
			}
			if c.post {
				for j := i - 1; j >= 0 && j >= i-7; j-- {
					if r.pages[toks[j]] {
						return strings.Join(toks[j:i+len(ph)], " ")
					}
				}
				continue
			}
			for j := i + len(ph); j < len(toks) && j < i+len(ph)+4; j++ {
				if r.pages[toks[j]] {
					return strings.Join(toks[i:j+1], " ")
				}
			}
		}
	}
	return ""
}

// sentenceRef is one predicate of sentenceRules, indexed by its first word.
type sentenceRef struct {
	rule  int
	words []string
	post  bool
}

// sentenceIndex maps a predicate's first word to the predicates that start
// with it, so that matching costs one lookup per word of the text.
var sentenceIndex = func() map[string][]sentenceRef {
	m := map[string][]sentenceRef{}
	for i, r := range sentenceRules {
		for _, ph := range r.post {
			m[ph[0]] = append(m[ph[0]], sentenceRef{i, ph, true})
		}
		for _, ph := range r.pre {
			m[ph[0]] = append(m[ph[0]], sentenceRef{i, ph, false})
		}
	}
	return m
}()

// citesNotFound reports a citation that itself names a not-found page —
// a reference page about HTTP 404, say — whose title is what was cited.
func citesNotFound(p Page, c Citation) bool {
	if u := parseURL(p.RequestedURL); u != nil && notFoundPath(u) {
		return true
	}
	if c.LinkText != "" && (notFoundTitle(c.LinkText) || notFoundSentence(fold(c.LinkText)) != "") {
		return true
	}
	return false
}

// contentSoft404 finds a soft 404 in a 2xx page.
func contentSoft404(p Page, c Citation, in *pageInfo) finding {
	if in.kind == kindPDF || in.kind == kindBinary || citesNotFound(p, c) {
		return finding{}
	}
	if t := serverTemplate(in); notFoundCode(t.code) {
		return finding{"server-template", t.name + " " + strconv.Itoa(t.code) + ", " + t.evidence}
	}
	if f := statusField(in); f.ok() {
		return f
	}
	if f := placeholder(in); f.ok() {
		return f
	}
	if in.articlePage() {
		// A long page that declares itself an article (a reference page
		// about HTTP 404, say) is not judged by its title and headings.
		return finding{}
	}
	thin := in.mainRunes < soft404Thin
	for _, t := range []string{in.title, in.ogTitle, in.pTitle} {
		if t == "" || !titleSaysNotFound(t, thin) {
			continue
		}
		if aboutError(in, t) {
			// An article about the status ("HTTP Status 404 – what it
			// means and how to fix it"): only its lead can say it is
			// not found.
			return leadSentence(in, c)
		}
		return finding{"title-phrase", "title " + evidence(t)}
	}
	for _, h := range ownHeadings(in) {
		if titleSaysNotFound(h, thin) {
			return finding{"heading-phrase", "heading " + evidence(h)}
		}
	}
	return leadSentence(in, c)
}

// Articles about errors. A title that names a missing page next to a
// headline of its own, over a long page that opens with a paragraph of
// prose that does not say it is missing, is an article about the error.
const (
	headlineWords = 5   // words of a title segment that make it a headline, not a site name
	articlePara   = 150 // runes of the opening paragraph of an article
)

// aboutError reports an article about an error whose title t names it.
func aboutError(in *pageInfo, t string) bool {
	if in.mainRunes < leadMaxPage || utf8.RuneCountInString(in.firstPara) < articlePara ||
		notFoundSentence(fold(unquoted(in.firstPara))) != "" {
		return false
	}
	words := 0
	for _, seg := range titleParts(t) {
		if notFoundTitle(seg) {
			continue
		}
		words = max(words, len(strings.Fields(seg)))
	}
	return words >= headlineWords
}

// leadSentence finds a not-found sentence in the page's own prose: anywhere
// on a thin page, in the lead of a page of ordinary length, in the opening
// of a longer one (a not-found message over a product grid) unless the
// page declares itself an article. A page whose headline is what the
// citation calls it ("Custom 404 pages", opening with "When a visitor
// requests a page that does not exist, …") is that page, talking about
// missing pages: a sentence does not outweigh its own headline.
func leadSentence(in *pageInfo, c Citation) finding {
	if headlineNames(fold(cmpOr(in.h1, in.bestTitle())), c) {
		return finding{}
	}
	var s string
	switch {
	case in.mainRunes < soft404Thin:
		s = notFoundSentence(fold(unquoted(in.prose.String())))
	case in.mainRunes < leadMaxPage:
		s = notFoundSentence(fold(proseLead(in)))
	case !in.ldArticle && !strings.EqualFold(in.ogType, "article"):
		s = notFoundSentence(fold(opening(in)))
	}
	if s == "" {
		return finding{}
	}
	return finding{"lead-sentence", "page says " + evidence(s)}
}

// errorishTitle returns the page's title when it reads like an error page,
// for a deep link that landed on the home page.
func errorishTitle(in *pageInfo) string {
	for _, t := range in.titles() {
		if notFoundTitle(t) {
			return t
		}
		for _, seg := range titleParts(t) {
			for _, w := range []string{"error", "oops", "gone", "unavailable", "not available", "no longer", "removed", "expired", "missing"} {
				if strings.Contains(" "+seg+" ", " "+w+" ") && len(strings.Fields(seg)) <= 8 {
					return t
				}
			}
		}
	}
	if in.mainRunes < soft404Thin {
		if s := notFoundSentence(fold(unquoted(in.prose.String()))); s != "" {
			if t := in.bestTitle(); t != "" {
				return t
			}
			return s
		}
	}
	return ""
}
