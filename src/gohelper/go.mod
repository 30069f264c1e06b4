module schedlab.dev/gohelper

go 1.22
