package parse

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// What a reference list is called. Agents title their bibliographies in the
// language of the report, or of the user interface that exported it (an
// English Gemini report from a Taiwanese UI ends in "#### **引用的著作**"),
// number them with the rest of the report ("## 9. Sources",
// "## 四、来源列表", "## **15. References** (APA 7th Edition)") and often
// write the title as a bold or colon-terminated line instead of a heading
// ("**References:**", "参考文献："). Cite recognises all of these; Sources
// (Gate C) only strips the section number, since the seed's rule is an exact
// "Sources".

// maxTitle bounds the title text examined, in bytes: a reference-list title
// is a few words, and every paragraph's first line is tried as one.
const maxTitle = 160

// sectionNumber matches the number a heading carries before its title:
// "9 ", "9. ", "9.1 ", "9) ", "9、", "IV. ", "B) ", "四、", "（四）",
// "第九章", "§ 9 ", "Appendix B: ", and "9\. " as exports escape it
// (goldmark keeps the backslash in a heading's text). A bare number needs
// a space after it, so that "2024 Sources" keeps its year; a roman numeral
// or a letter needs its "." or ")".
var sectionNumber = regexp.MustCompile(`^(?:` +
	`\d{1,3}(?:[.．]\d{1,3})*(?:\\?[.．)）、:：]\s*|\s+)` +
	`|[IVXLC]{1,7}[.)]\s*` +
	`|[A-Z][.)]\s+` +
	`|[一二三四五六七八九十百零〇]{1,4}[、.．:：]\s*` +
	`|[(（](?:\d{1,3}|[一二三四五六七八九十]{1,3}|[IVXivx]{1,5}|[A-Za-z])[)）]\s*` +
	`|第[一二三四五六七八九十百零〇\d]{1,4}[章节節部篇]\s*` +
	`|§\s*\d{1,3}(?:\.\d{1,3})*\s*` +
	`|(?i:part|section|chapter|appendix|annex)\s+(?:\d{1,3}|[IVXLC]{1,7}|[A-Z])[.:：)]?\s+` +
	`)`)

// stripSectionNumber removes the section number in front of a heading's
// text ("9. Sources" → "Sources", "四、来源列表" → "来源列表") and the
// white space around what is left. A title that is only a number is
// returned unchanged.
func stripSectionNumber(title string) string {
	title = strings.TrimSpace(title)
	if loc := sectionNumber.FindStringIndex(title); loc != nil && loc[1] < len(title) {
		return strings.TrimSpace(title[loc[1]:])
	}
	return title
}

// isRefTitle reports whether a heading's text or a label line names a
// reference list: "Sources", "## References:", "**Works Cited**",
// "5. Bibliography", "📚 Sources & References", "## 四、来源列表",
// "Quellenangaben", "Список литературы", "参考文献：". Case, accents,
// markup, a leading section number, a trailing colon and a trailing
// parenthetical ("(APA 7th Edition)") do not matter. A title is a known
// name (refTitles), possibly with a qualifier before or after it ("Key
// Sources", "Sources consulted", "Fuentes consultadas", "来源列表"), or two
// or more such names joined by "and", "&", "/" ("Sources and Further
// Reading", "Quellen und Literatur", "注释与参考文献").
func isRefTitle(s string) bool {
	if len(s) > maxTitle {
		return false
	}
	// Leading markup, emoji and bullets go; "(" and "§" may start a number.
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '(' && r != '（' && r != '§'
	})
	s = stripSectionNumber(norm.NFC.String(s))
	s = trimTitleTail(s)
	if s == "" {
		return false
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&', '＆', '/', '+', '、', '・', '|', ',', '，', ';':
			b.WriteString(" and ")
		default:
			b.WriteRune(r)
		}
	}
	f := words(b.String())
	if len(f) == 0 {
		return false
	}
	if refTitlePart(f) {
		return true // "notes and references" is one name
	}
	// "and" joins two names; every part must be one.
	start := 0
	for i := 0; i <= len(f); i++ {
		if i < len(f) && !conjunctions[f[i]] {
			continue
		}
		if i == start || !refTitlePart(f[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

// trimTitleTail removes trailing markup and punctuation ("**References:**",
// "参考文献：") and then one trailing parenthetical qualifier
// ("References (APA 7th Edition)", "参考文献（按引用顺序）").
func trimTitleTail(s string) string {
	notWord := func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ')' && r != '）'
	}
	s = strings.TrimRightFunc(s, notWord)
	if r, _ := utf8.DecodeLastRuneInString(s); r == ')' || r == '）' {
		if k := strings.LastIndexAny(s, "(（"); k > 0 {
			s = strings.TrimRightFunc(s[:k], notWord)
		}
	}
	return s
}

// refTitlePart reports whether a run of folded words is one reference-list
// name, possibly qualified.
func refTitlePart(f []string) bool {
	if refTitles[strings.Join(f, " ")] {
		return true
	}
	// A qualifier before or after a name: "key citations", "sources used",
	// "использованные источники".
	if len(f) >= 2 && titleQualifiers[f[0]] && refTitlePart(f[1:]) {
		return true
	}
	if len(f) >= 2 && titleQualifiers[f[len(f)-1]] && refTitles[strings.Join(f[:len(f)-1], " ")] {
		return true
	}
	// Chinese and Japanese write the title as one word: "来源列表",
	// "主要参考文献", "注释与参考文献".
	if len(f) == 1 {
		w := f[0]
		for _, q := range cjkQualifiers {
			if rest, ok := strings.CutPrefix(w, q); ok && rest != "" && refTitles[rest] {
				return true
			}
			if rest, ok := strings.CutSuffix(w, q); ok && rest != "" && refTitles[rest] {
				return true
			}
		}
		for _, and := range cjkConjunctions {
			if a, b, ok := strings.Cut(w, and); ok && a != "" && b != "" {
				return refTitlePart([]string{a}) && refTitlePart([]string{b})
			}
		}
	}
	return false
}

// refTitles are the names of reference lists, folded (see fold) when the
// package is initialised, so accents and case need not be listed.
var refTitles = foldSet(
	// English
	"sources", "references", "bibliography", "bibliographies", "works cited", "work cited",
	"cited works", "citations", "reference list", "references list", "source list", "sources list",
	"list of sources", "list of references", "literature", "literature cited", "references cited",
	"footnotes", "endnotes", "notes and references", "references and notes", "notes and sources",
	"sources and notes", "further reading", "reading list", "suggested reading", "external links",
	"links", "useful links", "reference links", "source links", "works consulted",
	// German
	"quellen", "quellenangaben", "quellenverzeichnis", "quellennachweis", "quellennachweise",
	"literatur", "literaturverzeichnis", "literaturangaben", "literaturliste", "bibliografie",
	"bibliographie", "referenzen", "einzelnachweise", "nachweise", "fußnoten", "weblinks",
	"zitierte werke", "weiterführende literatur",
	// French
	"références", "sources des citations", "ouvrages cités", "œuvres citées", "travaux cités",
	"notes et références", "références bibliographiques", "liens externes", "pour en savoir plus",
	"lectures complémentaires", "webographie", "sitographie", "notes de bas de page",
	// Spanish
	"referencias", "fuentes", "bibliografía", "obras citadas", "trabajos citados",
	"referencias bibliográficas", "notas y referencias", "enlaces externos", "lecturas adicionales",
	"lectura adicional", "notas al pie",
	// Portuguese
	"referências", "fontes", "bibliografia", "referências bibliográficas", "notas e referências",
	"ligações externas", "links externos", "leitura adicional", "leituras adicionais",
	"notas de rodapé",
	// Italian
	"riferimenti", "fonti", "opere citate", "riferimenti bibliografici", "note e riferimenti",
	"collegamenti esterni", "ulteriori letture", "letture consigliate", "sitografia", "note a piè di pagina",
	// Russian
	"источники", "литература", "список литературы", "список источников",
	"список использованных источников", "список использованной литературы", "библиография",
	"примечания", "ссылки", "внешние ссылки", "сноски", "цитируемые работы", "процитированные работы",
	// Chinese (simplified and traditional)
	"参考文献", "參考文獻", "参考资料", "參考資料", "来源", "來源", "资料来源", "資料來源",
	"信息来源", "資訊來源", "引用", "引用文献", "引用文獻", "引用来源", "引用來源", "引用的著作",
	"引用著作", "参考来源", "參考來源", "参考链接", "參考連結", "相关链接", "相關連結", "延伸阅读",
	"延伸閱讀", "扩展阅读", "参考书目", "參考書目", "脚注", "腳註", "注释", "註釋", "文献", "引文", "出处", "出處",
	"外部链接", "外部連結", "数据来源", "數據來源",
	// Japanese
	"出典", "参考リンク", "参考サイト", "引用元", "情報源", "注釈", "外部リンク", "関連リンク",
	"参照", "参照文献",
	// Korean
	"참고문헌", "참고 문헌", "참고 자료", "출처", "인용 문헌", "각주",
)

// titleQualifiers may stand before or after a name without changing what
// the section is: "Key Sources", "Sources consulted", "Weitere Quellen",
// "Fuentes consultadas", "Основные источники".
var titleQualifiers = foldSet(
	"key", "selected", "primary", "secondary", "main", "additional", "other", "further", "full",
	"complete", "all", "general", "web", "online", "academic", "external", "core", "major",
	"recommended", "suggested", "cited", "consulted", "used", "verified", "list",
	"weitere", "zitierte", "verwendete", "ausgewählte", "wichtigste", "genutzte",
	"principales", "autres", "citées", "consultées", "utilisées", "sélectionnées",
	"otras", "citadas", "consultadas", "utilizadas", "seleccionadas",
	"principais", "outras", "utilizadas",
	"principali", "altre", "citate", "consultate", "utilizzate",
	"основные", "использованные", "дополнительные", "цитируемые", "рекомендуемая", "рекомендуемые",
)

// cjkQualifiers are written onto the name: "来源列表", "主要参考文献",
// "参考文献一覧".
var cjkQualifiers = []string{"列表", "清单", "清單", "一览", "一覽", "一覧", "リスト", "主要", "其他", "相关", "相關", "部分"}

// conjunctions join two names in one title.
var conjunctions = foldSet("and", "und", "et", "y", "e", "и", "en", "og", "och", "및")

var cjkConjunctions = []string{"与", "與", "和", "及", "と"}

func foldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, w := range names {
		m[strings.Join(words(w), " ")] = true
	}
	return m
}
