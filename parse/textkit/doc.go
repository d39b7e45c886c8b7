// Package textkit holds the text tools every part of citegate shares, one
// of each: the sentence splitter (Sentences, and SentenceEnd for callers
// that split text with holes in it, like the citation scanner), the word
// splitter (Words), the stemmer (Stem: Porter's, with -ly and British
// -ise folded first), the stop-word list (Stop) and accent folding (Fold).
// The page classifier, the verify judges and the citation scanner all use
// them, so that "a word", "a sentence" and "the same word" mean the same
// thing everywhere.
package textkit
