package human

import "testing"

func TestCountAgrees(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n    int
		want string
	}{{0, "0 sandboxes"}, {1, "1 sandbox"}, {2, "2 sandboxes"}, {-1, "-1 sandboxes"}}
	for _, tc := range cases {
		if got := Count(tc.n, "sandbox", "sandboxes"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0: "0 B", 812: "812 B", 1023: "1023 B", 1024: "1.00 KiB", 4096: "4.00 KiB", 15 << 10: "15.0 KiB",
		221249536: "211 MiB", 1032871936: "985 MiB", 1048063: "1023 KiB", 1048500: "1.00 MiB", 1415823360: "1.32 GiB",
		5 << 50: "5.00 PiB", 5000 << 50: "5000 PiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShortBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0: "0B", 1023: "1023B", 1024: "1.0K", 10189: "10K", 221249536: "211M", 1032871936: "985M",
		1415823360: "1.3G", 2040373248: "1.9G", 10683731968: "10G", 21474836480: "20G", 5000 << 50: "5000P",
	} {
		if got := ShortBytes(n); got != want {
			t.Errorf("ShortBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestStripANSI(t *testing.T) {
	t.Parallel()
	in := "\x1b[0;31mZeroDivisionError\x1b[0m: x \x1b[38;5;241;43m1\x1b[39;49m \x1b]8;;http://x\x07link\x1b]8;;\x1b\\ \x1b[2K"
	if got := StripANSI(in); got != "ZeroDivisionError: x 1 link " {
		t.Errorf("got %q", got)
	}
}
