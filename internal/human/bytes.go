package human

import "fmt"

// Bytes is n in binary units with three significant figures: 812 B,
// 4.00 KiB, 211 MiB, 1.93 GiB.
func Bytes(n int64) string {
	v, unit := inUnits(n)
	switch {
	case unit == 0:
		return fmt.Sprintf("%d B", n)
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f %ciB", v, units[unit])
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f %ciB", v, units[unit])
	}
	return fmt.Sprintf("%.2f %ciB", v, units[unit])
}

// ShortBytes is n as df -h and free -h write it, for a cell that must be
// narrow: a binary unit by its initial, one decimal below 10 ("985M",
// "1.3G", "20G").
func ShortBytes(n int64) string {
	v, unit := inUnits(n)
	switch {
	case unit == 0:
		return fmt.Sprintf("%dB", n)
	case v < 9.95 && v > -9.95:
		return fmt.Sprintf("%.1f%c", v, units[unit])
	}
	return fmt.Sprintf("%.0f%c", v, units[unit])
}

// units are the initials of the binary units, bytes first.
const units = "BKMGTP"

// inUnits is n in the largest binary unit under which it stays below
// 1023.5 (1023.7 would print as 1024: the next unit says it better), and
// that unit's place in units; bytes (0) below 1024.
func inUnits(n int64) (float64, int) {
	if n < 1024 && n > -1024 {
		return float64(n), 0
	}
	v := float64(n)
	unit := 1
	for v /= 1024; (v >= 1023.5 || v <= -1023.5) && unit < len(units)-1; unit++ {
		v /= 1024
	}
	return v, unit
}
