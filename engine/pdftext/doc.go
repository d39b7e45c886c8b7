// Package pdftext reads the text of a PDF so that verify can judge a paper
// cited as a PDF like a web page.
//
// The PDF object layer — cross-reference tables and streams, object
// streams, FlateDecode/ASCII85 filters, RC4/AES decryption with an empty
// user password, simple-font encodings — is github.com/ledongthuc/pdf
// (BSD-3-Clause, pure Go, maintained fork of rsc.io/pdf). On top of it this
// package does what that library does not do safely or well enough for
// hostile input from the open web:
//
//   - pdftext.go: the API ([Text], [Is]), the deadline and the recover
//     around every library call;
//   - guard.go: the reader that aborts a runaway parse at the deadline, the
//     pre-check of the numbers that size the library's allocations, and the
//     byte budget on decoded streams;
//   - lex.go, interp.go, layout.go: our own content-stream tokenizer and
//     text interpreter, with bounded operands, and word and line breaks from
//     glyph positions (the library's plain-text reader runs words together
//     when the file has no space characters, as TeX output has not);
//   - font.go, cmap.go: font decoding, with our own ToUnicode CMap parser;
//   - repair.go: cross-reference reconstruction for a file cut at the body
//     cap or with wrong offsets.
//
// Text never panics and returns within [MaxDuration]; see FuzzText.
package pdftext
