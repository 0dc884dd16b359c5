package io.macrodb.bench;

import java.util.Random;

/** The TPC-C specification's random generators (clause 4.3.2), shared by the workloads. */
public final class RandomData {
    private static final char[] ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};

    private RandomData() {}

    /** Uniform in [lo, hi]. */
    public static int uniform(Random r, int lo, int hi) { return lo + r.nextInt(hi - lo + 1); }

    /**
     * NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. When a scaled-down
     * range is smaller than A, A is cut to the largest 2^k-1 below the range size (not in the spec).
     */
    public static int nurand(Random r, int a, int c, int x, int y) {
        int range = y - x + 1;
        int aa = a;
        while (aa > 1 && aa >= range) aa >>= 1;
        return (((uniform(r, 0, aa) | uniform(r, x, y)) + c) % range) + x;
    }

    /** a-string: random alphanumerics, length in [lo, hi]. */
    public static String astring(Random r, int lo, int hi) {
        int n = uniform(r, lo, hi);
        char[] s = new char[n];
        for (int i = 0; i < n; i++) s[i] = ALNUM[r.nextInt(ALNUM.length)];
        return new String(s);
    }

    /** n-string: random digits, length in [lo, hi]. */
    public static String nstring(Random r, int lo, int hi) {
        int n = uniform(r, lo, hi);
        char[] s = new char[n];
        for (int i = 0; i < n; i++) s[i] = (char) ('0' + r.nextInt(10));
        return new String(s);
    }

    /** C_LAST from a number 0..999: three syllables (clause 4.3.2.3). */
    public static String lastName(int num) {
        return SYLLABLES[num / 100] + SYLLABLES[(num / 10) % 10] + SYLLABLES[num % 10];
    }

    /** I_DATA / S_DATA: 26..50 characters, 10% of them containing "ORIGINAL". */
    public static String dataWithOriginal(Random r) {
        String s = astring(r, 26, 50);
        if (r.nextInt(10) == 0) {
            int pos = r.nextInt(s.length() - 8);
            s = s.substring(0, pos) + "ORIGINAL" + s.substring(pos + 8);
        }
        return s;
    }

    public static String zip(Random r) { return nstring(r, 4, 4) + "11111"; }
}
