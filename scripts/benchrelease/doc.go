// Package benchrelease holds BenchmarkRelease: the `tandem run` of this
// tree against a previous release's binary, paired and alternated in the
// same minutes, measured from outside (issue 48). It is apart because it
// drives built binaries as a person does, through the command line, and
// imports no Tandem code but the test model server: `make bench-release`
// builds both binaries (scripts/bench-release.sh) and runs it.
package benchrelease
