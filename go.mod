module github.com/abx-dev/abx

go 1.26.7

toolchain go1.26.10

require (
	connectrpc.com/connect v1.21.1
	github.com/cenkalti/backoff/v5 v5.0.3
	github.com/clipperhouse/displaywidth v0.11.0
	github.com/cpuguy83/go-md2man/v2 v2.0.6
	github.com/go-viper/mapstructure/v2 v2.4.0
	github.com/itchyny/gojq v0.12.20
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.10
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/tools v0.51.0 // indirect
	gopkg.in/check.v1 v1.0.0-20190902080502-41f04d3bba15 // indirect
)
