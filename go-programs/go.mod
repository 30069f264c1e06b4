module schedlab.dev/corpus

go 1.22
