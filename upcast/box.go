package upcast

import "unsafe"

// Boxing decoded strings and longs.
//
// Storing a string or an int64 in an `any` allocates a copy of the value
// for the interface to point at (16 and 8 bytes). The decoders instead
// copy each value into a slot of a slab owned by the decode state and
// build the interface around the slot: one allocation per boxSlabLen
// values instead of one per value. A slot is written once, before it is
// boxed, and never again (a slab is only appended to, and replaced when
// full), so the interface's value is immutable as Go requires. The cost
// is retention: a value kept alive keeps its slab (boxSlabLen slots, and
// the bytes of the slab's other strings, which hamba's Reader already
// hands out of shared byte slabs) alive with it.

// boxSlabLen is the number of slots in a slab.
const boxSlabLen = 128

// eface is the layout of an empty interface (runtime.eface).
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// typeOf returns the runtime type word of v's dynamic type.
func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	stringType = typeOf("")
	int64Type  = typeOf(int64(0))
)

// boxSlabs holds a decode state's current slabs.
type boxSlabs struct {
	strs  []string
	longs []int64
}

// str returns s as an `any` (dynamic type string).
func (b *boxSlabs) str(s string) any {
	if len(b.strs) == 0 {
		b.strs = make([]string, boxSlabLen)
	}
	p := &b.strs[0]
	*p = s
	b.strs = b.strs[1:]
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = stringType, unsafe.Pointer(p)
	return v
}

// long returns i as an `any` (dynamic type int64).
func (b *boxSlabs) long(i int64) any {
	if len(b.longs) == 0 {
		b.longs = make([]int64, boxSlabLen)
	}
	p := &b.longs[0]
	*p = i
	b.longs = b.longs[1:]
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = int64Type, unsafe.Pointer(p)
	return v
}
