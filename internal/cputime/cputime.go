// Package cputime reads the CPU time this process has used, user and
// system together, for the benchmarks that report CPU per step beside
// wall time: on idle cores, work done for nobody (a picture encoded with no
// viewer, issue 48) costs no wall time and shows only here. It is apart
// because the engine's and the backend's benchmarks share it and each
// system reads the figure its own way.
package cputime
