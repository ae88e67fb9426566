package javafloat

import "testing"

func TestJavaFloatText(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1e7, 64, "1.0E7"}, {1.0e-3, 64, "0.001"}, {1.0e-4, 64, "1.0E-4"},
		{123456.789, 64, "123456.789"}, {-2.5e-10, 64, "-2.5E-10"}, {float64(float32(1.1)), 32, "1.1"},
		{float64(float32(3.4e38)), 32, "3.4E38"},
	} {
		if got := string(Append(nil, c.f, c.bits)); got != c.want {
			t.Errorf("%v (%d bits): %s, want %s", c.f, c.bits, got, c.want)
		}
	}
}
