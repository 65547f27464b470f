package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux reports them in clock ticks of 1/100 s whatever its
// internal timer frequency.
const userHZ = 100

// processCPU is the user and system CPU time of process pid so far, all its threads, from /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, the second field, is in parentheses and may hold spaces: the fields are counted after it.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(data[end+1:]))
	// After the name: state (field 3) … utime (14), stime (15).
	if len(fields) < 13 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// listeningPID finds the process listening on TCP port on this machine: the socket's inode from /proc/net/tcp and
// tcp6, then the process holding a descriptor of it. Only processes this user may inspect are found.
func listeningPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listeningInodes(table, port, inodes); err != nil {
			return 0, err
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("bench: nothing listens on port %d", port)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range procs {
		link, err := os.Readlink(fd)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			return strconv.Atoi(strings.Split(fd, "/")[2])
		}
	}
	return 0, fmt.Errorf("bench: no process of this user holds the socket listening on port %d (give its pid)", port)
}

// listeningInodes adds to inodes those of the sockets in a /proc/net/tcp table listening on port.
func listeningInodes(table string, port int, inodes map[string]bool) error {
	f, err := os.Open(table)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	const listen = "0A"
	s := bufio.NewScanner(f)
	s.Scan() // the header
	for s.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := strings.Fields(s.Text())
		if len(fields) < 10 || fields[3] != listen {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if p, err := strconv.ParseInt(hexPort, 16, 32); ok && err == nil && int(p) == port {
			inodes[fields[9]] = true
		}
	}
	return s.Err()
}

// machineTicks (Linux only; elsewhere the machine's use is not reported) is the CPU time of the whole machine so far, summed over its cores, from the first line of /proc/stat:
// busy (every state but idle and I/O wait) and all, in clock ticks; and how many cores the lines after it count.
func machineTicks() (busy, all int64, cores int, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	fields := strings.Fields(string(line))
	// cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is counted in user already.
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0, 0, fmt.Errorf("bench: /proc/stat: unexpected first line %q", line)
	}
	for i, f := range fields[1:9] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("bench: /proc/stat: %w", err)
		}
		all += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	for _, l := range bytes.Split(rest, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("cpu")) && len(l) > 3 && '0' <= l[3] && l[3] <= '9' {
			cores++
		}
	}
	return busy, all, cores, nil
}

// machineWindow is what the whole machine did during a window: the share of its CPU time that was busy, and that
// busy time itself, the server's, the load generator's and the kernel's together. With the load generator on the same
// cores, a window below 100 % busy was bound by waiting, not by CPU, and the busy time per request compares what two
// systems cost the machine whatever their share of it.
type machineWindow struct {
	busy float64
	cpu  time.Duration
}

// machineUse returns a function that, called at the end of a window begun now, says what the machine did meanwhile;
// zero when /proc/stat cannot be read.
func machineUse() func() machineWindow {
	busy0, all0, _, err := machineTicks()
	start := time.Now()
	return func() machineWindow {
		busy1, all1, cores, err1 := machineTicks()
		wall := time.Since(start)
		if err != nil || err1 != nil || all1 <= all0 || cores == 0 {
			return machineWindow{}
		}
		share := float64(busy1-busy0) / float64(all1-all0)
		return machineWindow{busy: share, cpu: time.Duration(share * float64(cores) * float64(wall))}
	}
}
