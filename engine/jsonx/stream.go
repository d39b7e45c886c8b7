package jsonx

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The streaming digest: Digest walks a value with reflection and writes its
// canonical JSON straight into the hash through a small buffer, instead of
// marshalling the whole input and then copying it into canonical form (which,
// for a 20,000-file run, held two buffers of the whole input at once). Every
// value it does not handle itself — a type with its own MarshalJSON or
// MarshalText, embedded struct fields, ",string" options, []byte, maps whose
// keys are not strings, strings that are not valid UTF-8 — goes through the
// original path (Marshal, then canon) for that value alone, so the bytes
// hashed are exactly the ones the original Digest hashed
// (TestStreamDigestMatchesCanon and FuzzStreamDigest compare the two).

// flushAt is the buffer size at which canonical bytes are handed to the hash.
const flushAt = 32 << 10

type streamer struct {
	h   hash.Hash
	buf []byte
	c   canon
	// customs caches custom per type: asked for every value, the four
	// Implements checks cost more than encoding a short string.
	customs map[reflect.Type]bool
}

func (s *streamer) custom(t reflect.Type) bool {
	c, ok := s.customs[t]
	if !ok {
		c = custom(t)
		s.customs[t] = c
	}
	return c
}

func (s *streamer) flush() {
	if len(s.buf) >= flushAt {
		s.h.Write(s.buf)
		s.buf = s.buf[:0]
	}
}

// streamDigest is Digest's implementation.
func streamDigest(v any) (string, error) {
	s := &streamer{h: sha256.New(), buf: make([]byte, 0, flushAt+4096), c: canon{orders: map[string][]string{}},
		customs: map[reflect.Type]bool{}}
	if err := s.value(reflect.ValueOf(v)); err != nil {
		return "", fmt.Errorf("jsonx: digest: %w", err)
	}
	s.h.Write(s.buf)
	return "sha256:" + hex.EncodeToString(s.h.Sum(nil)), nil
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

// custom reports whether t (or *t) defines its own JSON or text encoding.
func custom(t reflect.Type) bool {
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// stringType is the plain string type, which cannot have methods: its values
// skip the custom-encoding lookup.
var stringType = reflect.TypeFor[string]()

// value writes v's canonical JSON to the buffer; callers flush it between
// elements and fields (a defer per value cost more than the encoding).
func (s *streamer) value(v reflect.Value) error {
	if !v.IsValid() {
		s.buf = append(s.buf, "null"...)
		return nil
	}
	t := v.Type()
	if t == stringType {
		if str := v.String(); utf8.ValidString(str) {
			s.buf = AppendString(s.buf, str)
			return nil
		}
		return s.slow(v)
	}
	if t == rawMessageType {
		if v.IsNil() {
			s.buf = append(s.buf, "null"...)
			return nil
		}
		return s.canonRaw(v.Bytes())
	}
	if s.custom(t) {
		return s.slow(v)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			s.buf = append(s.buf, "null"...)
			return nil
		}
		return s.value(v.Elem())
	case reflect.String:
		str := v.String()
		if !utf8.ValidString(str) {
			return s.slow(v)
		}
		s.buf = AppendString(s.buf, str)
	case reflect.Bool:
		s.buf = strconv.AppendBool(s.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.buf = appendNumber(s.buf, float64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.buf = appendNumber(s.buf, float64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return &json.UnsupportedValueError{Value: v, Str: strconv.FormatFloat(f, 'g', -1, 64)}
		}
		if v.Kind() == reflect.Float32 {
			// Marshal prints a float32's shortest 32-bit form, which
			// parses to a different float64 than the widened value.
			f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		}
		s.buf = appendNumber(s.buf, f)
	case reflect.Slice:
		if v.IsNil() {
			s.buf = append(s.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return s.slow(v) // base64
		}
		return s.array(v)
	case reflect.Array:
		return s.array(v)
	case reflect.Map:
		return s.mapValue(v)
	case reflect.Struct:
		return s.structValue(v)
	default:
		return s.slow(v) // channels, funcs, complex: Marshal's error
	}
	return nil
}

func (s *streamer) array(v reflect.Value) error {
	s.buf = append(s.buf, '[')
	// A slice of plain structs (the common digested input: one record per
	// URL) has its elements' checks and field table looked up once.
	var info *structInfo
	if et := v.Type().Elem(); et.Kind() == reflect.Struct && !s.custom(et) {
		if si := structInfoOf(et); !si.fallback {
			info = si
		}
	}
	for i := range v.Len() {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		var err error
		if info != nil {
			err = s.fields(v.Index(i), info)
		} else {
			err = s.value(v.Index(i))
		}
		if err != nil {
			return err
		}
		s.flush()
	}
	s.buf = append(s.buf, ']')
	return nil
}

func (s *streamer) mapValue(v reflect.Value) error {
	if v.IsNil() {
		s.buf = append(s.buf, "null"...)
		return nil
	}
	if v.Type().Key().Kind() != reflect.String || s.custom(v.Type().Key()) {
		return s.slow(v)
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		if !utf8.ValidString(k.String()) {
			return s.slow(v)
		}
		keys = append(keys, k.String())
	}
	s.buf = append(s.buf, '{')
	for i, k := range s.c.keyOrder(keys) {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = append(AppendString(s.buf, k), ':')
		if err := s.value(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))); err != nil {
			return err
		}
		s.flush()
	}
	s.buf = append(s.buf, '}')
	return nil
}

func (s *streamer) structValue(v reflect.Value) error {
	info := structInfoOf(v.Type())
	if info.fallback {
		return s.slow(v)
	}
	return s.fields(v, info)
}

// fields writes a struct whose info is not a fallback.
func (s *streamer) fields(v reflect.Value, info *structInfo) error {
	s.buf = append(s.buf, '{')
	first := true
	for _, f := range info.fields {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if !first {
			s.buf = append(s.buf, ',')
		}
		first = false
		s.buf = append(s.buf, f.key...)
		if f.plain {
			if str := fv.String(); utf8.ValidString(str) {
				s.buf = AppendString(s.buf, str)
				s.flush()
				continue
			}
		}
		if err := s.value(fv); err != nil {
			return err
		}
		s.flush()
	}
	s.buf = append(s.buf, '}')
	return nil
}

// slow is the original path for one value: Marshal, then canonical form.
func (s *streamer) slow(v reflect.Value) error {
	b, err := Marshal(v.Interface())
	if err != nil {
		return err
	}
	return s.canonRaw(b)
}

func (s *streamer) canonRaw(b []byte) error {
	out, rest, err := s.c.value(s.buf, b)
	if err == nil && len(skipSpace(rest)) != 0 {
		err = errors.New("trailing data")
	}
	s.buf = out
	return err
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// structInfo is how one struct type is digested: its encoded fields in
// canonical key order (a subset left by omitempty keeps that order, since
// the order is total), or fallback when the type uses a feature of
// encoding/json's struct rules this walker does not reproduce.
type structInfo struct {
	fields   []fieldInfo
	fallback bool
}

type fieldInfo struct {
	index     int
	key       []byte // the key as canonical JSON, followed by ':'
	omitEmpty bool
	plain     bool // of type string itself, which value would only encode
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	// Only *structInfo is stored; anything else is rebuilt (and replaced).
	if info, ok := structInfos.Load(t); ok {
		if si, ok := info.(*structInfo); ok {
			return si
		}
	}
	info := buildStructInfo(t)
	structInfos.Store(t, info)
	return info
}

func buildStructInfo(t reflect.Type) *structInfo {
	byName := map[string]fieldInfo{}
	var names []string
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return &structInfo{fallback: true}
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTag(name) {
			name = ""
		}
		if name == "" {
			name = sf.Name
		}
		omit := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "omitempty":
				omit = true
			default: // "string", "omitzero", …
				return &structInfo{fallback: true}
			}
		}
		if _, dup := byName[name]; dup || !utf8.ValidString(name) {
			return &structInfo{fallback: true}
		}
		byName[name] = fieldInfo{index: i, key: append(AppendString(nil, name), ':'), omitEmpty: omit, plain: sf.Type == stringType}
		names = append(names, name)
	}
	c := canon{orders: map[string][]string{}}
	info := &structInfo{}
	for _, n := range c.keyOrder(names) {
		info.fields = append(info.fields, byName[n])
	}
	return info
}

// validTag is encoding/json's rule for a usable tag name.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
