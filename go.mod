module github.com/perflab/perflab

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.11.0
	golang.org/x/text v0.24.0
)
