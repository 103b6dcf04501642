// Command hello is the main package gobuild's test builds.
package main

import "fmt"

func main() { fmt.Println("hello from gobuild's test") }
