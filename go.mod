module github.com/perflab/perflab

go 1.26.8
