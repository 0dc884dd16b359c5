package io.macrodb.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A plain-text table for terminal reports: a header and rows of cells, columns padded to their
 * widest cell. A column whose cells are all numbers (digits with optional sign, grouping
 * commas, decimal point and percent sign) or "-" is right-aligned, header included; other columns
 * are left-aligned.
 */
public final class TextTable {
    private static final Pattern NUMBER = Pattern.compile("-|[-+]?[0-9][0-9,]*(\\.[0-9]+)?%?");
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    public TextTable(String... header) {
        columns = header.length;
        rows.add(header);
    }

    /** Adds a row; {@code cells} are formatted with {@link String#valueOf(Object)}. */
    public TextTable row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, the table has " + columns + " columns");
        }
        rows.add(Arrays.stream(cells).map(String::valueOf).toArray(String[]::new));
        return this;
    }

    /** Prints the table, each line starting with {@code indent}. */
    public void print(PrintWriter out, String indent) {
        int[] width = new int[columns];
        boolean[] numeric = new boolean[columns];
        Arrays.fill(numeric, rows.size() > 1);
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], r[c].length());
                if (i > 0 && !isNumber(r[c])) numeric[c] = false;
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < columns; c++) {
                if (c > 0) line.append("  ");
                String pad = " ".repeat(width[c] - r[c].length());
                line.append(numeric[c] ? pad + r[c] : r[c] + pad);
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }

    private static boolean isNumber(String cell) {
        return NUMBER.matcher(cell).matches();
    }
}
