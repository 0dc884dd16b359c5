package io.macrodb.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Relative weights of a workload's transaction types; each transaction's type is drawn at random
 * with these weights (the TPC-C "deck" is a refinement we do not need for throughput curves).
 */
public record Mix(String name, List<TxType> types, double[] weights) {
    public Mix {
        if (weights.length != types.size()) throw new IllegalArgumentException("mix " + name + ": " + weights.length
                + " weights for " + types.size() + " transaction types");
        double total = Arrays.stream(weights).sum();
        if (!(total > 0) || Arrays.stream(weights).anyMatch(w -> w < 0)) {
            throw new IllegalArgumentException("mix " + name + ": weights must be >= 0 and not all 0");
        }
        double[] cum = new double[weights.length];
        double acc = 0;
        for (int i = 0; i < weights.length; i++) {
            acc += weights[i] / total;
            cum[i] = acc;
        }
        weights = cum;
    }

    /** Draws a transaction type. */
    public TxType pick(Random rnd) {
        double x = rnd.nextDouble();
        for (int i = 0; i < weights.length; i++) if (x < weights[i]) return types.get(i);
        return types.get(types.size() - 1);
    }

    /** Share of each type, 0..1. */
    public double share(int i) { return weights[i] - (i == 0 ? 0 : weights[i - 1]); }

    /** Share of read-only transactions, 0..1. */
    public double readOnlyShare() {
        double s = 0;
        for (int i = 0; i < types.size(); i++) if (types.get(i).readOnly()) s += share(i);
        return s;
    }

    /**
     * A mix written {@code R-U} (read-only share : update share, e.g. 80-20): the read-only types
     * share R in the proportions of {@code baseWeights}, the update types share U likewise.
     */
    public static Mix readUpdate(String name, List<TxType> types, double[] baseWeights, double readShare) {
        double ro = 0, up = 0;
        for (int i = 0; i < types.size(); i++) {
            if (types.get(i).readOnly()) ro += baseWeights[i];
            else up += baseWeights[i];
        }
        double[] w = new double[types.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = types.get(i).readOnly() ? (ro == 0 ? 0 : readShare * baseWeights[i] / ro)
                    : (up == 0 ? 0 : (1 - readShare) * baseWeights[i] / up);
        }
        return new Mix(name, types, w);
    }

    /**
     * Parses {@code R-U} (read-only : update shares, e.g. 80-20), or explicit weights
     * {@code Type=w,Type=w,...} (names as in {@link #types}; missing types weigh 0).
     *
     * <p>Shares are percentages: an {@code R-U} mix whose shares add up to more than 100 (80-30)
     * and weights that add up to more than 100 are refused, since no reading of them is the mix
     * that was meant. Shares or weights that add up to less than 100 are proportions (8-2 is
     * 80-20; NewOrder=1,StockLevel=3 is 25% and 75%).
     *
     * @throws IllegalArgumentException for a mix above 100%, a negative or malformed weight, an unknown type
     */
    public static Mix parse(String spec, List<TxType> types, double[] baseWeights) {
        String s = spec.trim();
        if (s.matches("\\d+(\\.\\d+)?-\\d+(\\.\\d+)?")) {
            String[] p = s.split("-");
            double r = Double.parseDouble(p[0]), u = Double.parseDouble(p[1]);
            if (r + u <= 0) throw new IllegalArgumentException("mix " + s + ": shares sum to 0");
            if (r + u > 100 + 1e-9) {
                throw new IllegalArgumentException("mix " + s + ": read-only " + fmt(r) + "% + update " + fmt(u) + "% = "
                        + fmt(r + u) + "%, above 100%; write shares that add up to 100 (e.g. " + fmt(Math.min(r, 100)) + "-"
                        + fmt(100 - Math.min(r, 100)) + ")");
            }
            return readUpdate(s, types, baseWeights, r / (r + u));
        }
        if (s.contains("=")) {
            double[] w = new double[types.size()];
            for (String part : s.split(",")) {
                String[] kv = part.split("=");
                if (kv.length != 2) throw new IllegalArgumentException("mix '" + s + "': write Type=weight,Type=weight");
                int idx = -1;
                for (TxType t : types) if (t.name().equalsIgnoreCase(kv[0].trim())) idx = t.index();
                if (idx < 0) throw new IllegalArgumentException("mix '" + s + "': no transaction type '" + kv[0].trim()
                        + "'; types are " + types.stream().map(TxType::name).toList());
                try {
                    w[idx] = Double.parseDouble(kv[1].trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("mix '" + s + "': weight of " + kv[0].trim() + " is not a number: '" + kv[1].trim() + "'");
                }
                if (!(w[idx] >= 0) || Double.isInfinite(w[idx])) {
                    throw new IllegalArgumentException("mix '" + s + "': weight of " + kv[0].trim() + " must be >= 0, not " + kv[1].trim());
                }
            }
            double total = Arrays.stream(w).sum();
            if (total > 100 + 1e-9) {
                throw new IllegalArgumentException("mix '" + s + "': weights add up to " + fmt(total) + "%, above 100%;"
                        + " write percentages that add up to 100 (or smaller proportions, e.g. NewOrder=1,StockLevel=3)");
            }
            return new Mix("custom(" + s + ")", types, w);
        }
        return null;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
