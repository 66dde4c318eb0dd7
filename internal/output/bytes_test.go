package output

import "testing"

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 812: "812 B", 1023: "1023 B", 1024: "1.00 KiB", 4096: "4.00 KiB", 15 << 10: "15.0 KiB",
		221249536: "211 MiB", 1032871936: "985 MiB", 1048063: "1023 KiB", 1048500: "1.00 MiB", 1415823360: "1.32 GiB",
		5 << 50: "5.00 PiB", 5000 << 50: "5000 PiB",
	} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
	s := &Streams{StdoutTTY: false}
	if got := s.Bytes(1415823360); got != "1415823360" {
		t.Errorf("piped: %q", got)
	}
}

func TestShortBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0B", 1023: "1023B", 1024: "1.0K", 10189: "10K", 221249536: "211M", 1032871936: "985M",
		1415823360: "1.3G", 2040373248: "1.9G", 10683731968: "10G", 21474836480: "20G", 5000 << 50: "5000P",
	} {
		if got := ShortBytes(n); got != want {
			t.Errorf("ShortBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
