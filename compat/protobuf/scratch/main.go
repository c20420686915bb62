package main

import (
	"fmt"
	"os"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

func main() {
	text, _ := os.ReadFile(os.Args[1])
	var deps []compat.Dependency
	for _, a := range os.Args[2:] {
		b, _ := os.ReadFile(a)
		deps = append(deps, compat.Dependency{Name: a, Text: string(b)})
	}
	s, err := protobuf.Parse(string(text), deps)
	if err != nil {
		fmt.Println("ERR:", err)
		return
	}
	fmt.Println(s.Canonical())
	fmt.Println("-----")
	fmt.Println(s.Normalized())
}
