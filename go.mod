module github.com/perflab/perflab

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.11.0
	golang.org/x/term v0.44.0
	golang.org/x/text v0.24.0
	gopkg.in/yaml.v3 v3.0.1
)

require golang.org/x/sys v0.46.0 // indirect
