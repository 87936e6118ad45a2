module github.com/perflab/perflab

go 1.26.8

require (
	github.com/NVIDIA/go-nvml v0.13.3-0
	gopkg.in/yaml.v3 v3.0.1
)
