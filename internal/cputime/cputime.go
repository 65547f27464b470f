// Package cputime reads the CPU time this process, or one of its threads, has used: what benchmarks report per
// operation. Unlike wall time it does not count waiting (for the disk, for a peer), and it counts every core.
package cputime

import "time"

// Process is the user and system CPU time of this process so far, all threads; its children's is not included.
func Process() time.Duration { return processTime() }

// Thread is the user and system CPU time of the calling thread so far.
func Thread() time.Duration { return threadTime() }

// Meter counts the process's CPU time from when it was started. Benchmarks report it per operation:
//
//	cpu := cputime.Start()
//	defer func() { b.ReportMetric(cpu.PerOp(b.N), cputime.Unit) }()
type Meter struct{ start time.Duration }

// Unit names what PerOp measures, as benchmarks report it.
const Unit = "cpu-µs/op"

// Start starts a meter.
func Start() Meter { return Meter{start: Process()} }

// PerOp is the process's CPU time since the meter started, in microseconds per each of n operations.
func (m Meter) PerOp(n int) float64 {
	return float64((Process() - m.start).Microseconds()) / float64(n)
}
