package io.macrodb.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * COPY ... FROM STDIN and COPY ... TO STDOUT: the statement's options, and PostgreSQL's text and CSV formats
 * (parsing rows that come in, writing rows that go out). No I/O and no JDBC here; {@link PgSession} runs it.
 */
final class Copy {
    private static final Pattern COPY = Pattern.compile(
            "(?is)COPY\\s+(?:(\\(.*\\))|([\\w.\"]+)\\s*(\\([^)]*\\))?)\\s+(FROM\\s+STDIN|TO\\s+STDOUT)\\s*(.*)");

    final String table;
    final List<String> columns;
    final String query;
    final boolean in;
    boolean csv;
    boolean header;
    char delimiter;
    String nullString;
    char quote = '"';
    char escape = '"';

    private Copy(String table, List<String> columns, String query, boolean in) {
        this.table = table;
        this.columns = columns;
        this.query = query;
        this.in = in;
    }

    /** The COPY statement, or null if {@code sql} is not a COPY to STDOUT or from STDIN. */
    static Copy parse(String sql) {
        Matcher m = COPY.matcher(SqlText.stripForClassification(sql));
        if (!m.matches()) return null;
        List<String> cols = new ArrayList<>();
        if (m.group(3) != null) {
            for (String c : m.group(3).substring(1, m.group(3).length() - 1).split(",")) cols.add(c.strip());
        }
        String query = m.group(1) == null ? null : m.group(1).substring(1, m.group(1).length() - 1);
        Copy c = new Copy(m.group(2), cols, query, m.group(4).toUpperCase(Locale.ROOT).startsWith("FROM"));
        if (c.in && query != null) throw new IllegalArgumentException("COPY (query) can only be used with TO");
        c.options(m.group(5));
        return c;
    }

    private void options(String rest) {
        String r = rest.strip();
        if (r.toUpperCase(Locale.ROOT).startsWith("WITH")) r = r.substring(4).strip();
        if (r.startsWith("(") && r.endsWith(")")) r = r.substring(1, r.length() - 1);
        Matcher m = Pattern.compile("(?i)(FORMAT\\s+(\\w+)|CSV|BINARY|TEXT|HEADER(?:\\s+(TRUE|FALSE|ON|OFF|1|0))?|DELIMITER\\s+(?:AS\\s+)?'((?:[^']|'')*)'"
                + "|NULL\\s+(?:AS\\s+)?'((?:[^']|'')*)'|QUOTE\\s+(?:AS\\s+)?'((?:[^']|'')*)'|ESCAPE\\s+(?:AS\\s+)?'((?:[^']|'')*)'|FREEZE(?:\\s+\\w+)?|,|\\s+)").matcher(r);
        int at = 0;
        Character delim = null;
        while (at < r.length()) {
            if (!m.find(at) || m.start() != at) throw new IllegalArgumentException("unsupported COPY option near \"" + r.substring(at) + "\"");
            String t = m.group(1).toUpperCase(Locale.ROOT);
            if (m.group(2) != null) {
                String f = m.group(2).toUpperCase(Locale.ROOT);
                if (f.equals("BINARY")) throw new IllegalArgumentException("COPY BINARY is not supported yet");
                if (!f.equals("CSV") && !f.equals("TEXT")) throw new IllegalArgumentException("COPY format \"" + m.group(2) + "\" not recognized");
                csv = f.equals("CSV");
            } else if (t.equals("CSV")) csv = true;
            else if (t.equals("BINARY")) throw new IllegalArgumentException("COPY BINARY is not supported yet");
            else if (t.startsWith("HEADER")) header = m.group(3) == null || List.of("TRUE", "ON", "1").contains(m.group(3).toUpperCase(Locale.ROOT));
            else if (m.group(4) != null) delim = single(m.group(4), "delimiter");
            else if (m.group(5) != null) nullString = m.group(5).replace("''", "'");
            else if (m.group(6) != null) quote = single(m.group(6), "quote");
            else if (m.group(7) != null) escape = single(m.group(7), "escape");
            at = m.end();
        }
        delimiter = delim != null ? delim : csv ? ',' : '\t';
        if (nullString == null) nullString = csv ? "" : "\\N";
        if (header && !csv) throw new IllegalArgumentException("COPY HEADER available only in CSV mode");
    }

    private static char single(String s, String what) {
        String v = s.replace("''", "'");
        if (v.length() != 1) throw new IllegalArgumentException("COPY " + what + " must be a single one-byte character");
        return v.charAt(0);
    }

    /** Parses the whole of a COPY FROM STDIN's data into rows (a null field is SQL NULL). */
    List<String[]> rows(String data) {
        List<String[]> rows = csv ? csvRows(data) : textRows(data);
        if (header && !rows.isEmpty()) rows.remove(0);
        return rows;
    }

    private List<String[]> textRows(String data) {
        List<String[]> rows = new ArrayList<>();
        for (String line : data.split("\n", -1)) {
            if (line.endsWith("\r")) line = line.substring(0, line.length() - 1);
            if (line.equals("\\.")) break;
            if (line.isEmpty()) continue;
            List<String> fields = new ArrayList<>();
            StringBuilder f = new StringBuilder();
            boolean raw = true;
            StringBuilder rawText = new StringBuilder();
            for (int i = 0; i <= line.length(); i++) {
                if (i == line.length() || line.charAt(i) == delimiter) {
                    fields.add(raw && rawText.toString().equals(nullString) ? null : f.toString());
                    f.setLength(0);
                    rawText.setLength(0);
                    continue;
                }
                char c = line.charAt(i);
                rawText.append(c);
                if (c != '\\' || i + 1 == line.length()) { f.append(c); continue; }
                char e = line.charAt(++i);
                rawText.append(e);
                switch (e) {
                    case 'b': f.append('\b'); break;
                    case 'f': f.append('\f'); break;
                    case 'n': f.append('\n'); break;
                    case 'r': f.append('\r'); break;
                    case 't': f.append('\t'); break;
                    case 'v': f.append('\u000B'); break;
                    case 'x': {
                        int j = i + 1;
                        while (j < line.length() && j < i + 3 && Character.digit(line.charAt(j), 16) >= 0) j++;
                        if (j == i + 1) { f.append('x'); break; }
                        f.append((char) Integer.parseInt(line.substring(i + 1, j), 16));
                        rawText.append(line, i + 1, j);
                        i = j - 1;
                        break;
                    }
                    default:
                        if (e >= '0' && e <= '7') {
                            int j = i;
                            while (j < line.length() && j < i + 3 && line.charAt(j) >= '0' && line.charAt(j) <= '7') j++;
                            f.append((char) Integer.parseInt(line.substring(i, j), 8));
                            rawText.append(line, i + 1, j);
                            i = j - 1;
                        } else {
                            f.append(e);
                        }
                }
            }
            rows.add(fields.toArray(new String[0]));
        }
        return rows;
    }

    private List<String[]> csvRows(String data) {
        List<String[]> rows = new ArrayList<>();
        List<String> fields = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        int i = 0;
        int n = data.length();
        boolean lineStart = true;
        while (i < n) {
            char c = data.charAt(i);
            if (lineStart && data.startsWith("\\.", i) && (i + 2 == n || data.charAt(i + 2) == '\n' || data.charAt(i + 2) == '\r')) break;
            lineStart = false;
            if (quoted) {
                if (c == escape && i + 1 < n && data.charAt(i + 1) == quote) { f.append(quote); i += 2; continue; }
                if (c == quote) { quoted = false; i++; continue; }
                f.append(c);
                i++;
                continue;
            }
            if (c == quote) { quoted = true; wasQuoted = true; i++; continue; }
            if (c == delimiter) {
                fields.add(field(f, wasQuoted));
                wasQuoted = false;
                i++;
                continue;
            }
            if (c == '\r' || c == '\n') {
                fields.add(field(f, wasQuoted));
                wasQuoted = false;
                rows.add(fields.toArray(new String[0]));
                fields.clear();
                if (c == '\r' && i + 1 < n && data.charAt(i + 1) == '\n') i++;
                i++;
                lineStart = true;
                continue;
            }
            f.append(c);
            i++;
        }
        if (quoted) throw new IllegalArgumentException("unterminated CSV quoted field");
        if (f.length() > 0 || wasQuoted || !fields.isEmpty()) {
            fields.add(field(f, wasQuoted));
            rows.add(fields.toArray(new String[0]));
        }
        return rows;
    }

    private String field(StringBuilder f, boolean wasQuoted) {
        String s = f.toString();
        f.setLength(0);
        return !wasQuoted && s.equals(nullString) ? null : s;
    }

    /** One row in the COPY TO format, newline included; null values are SQL NULL. */
    String format(String[] values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) b.append(delimiter);
            String v = values[i];
            if (v == null) { b.append(csv ? "" : nullString); continue; }
            if (csv) {
                boolean q = v.isEmpty() && nullString.isEmpty() || v.indexOf(delimiter) >= 0 || v.indexOf(quote) >= 0
                        || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0 || v.equals(nullString);
                if (q) b.append(quote).append(v.replace(String.valueOf(quote), "" + escape + quote)).append(quote);
                else b.append(v);
            } else {
                for (int k = 0; k < v.length(); k++) {
                    char c = v.charAt(k);
                    switch (c) {
                        case '\\': b.append("\\\\"); break;
                        case '\n': b.append("\\n"); break;
                        case '\r': b.append("\\r"); break;
                        case '\t': b.append("\\t"); break;
                        case '\b': b.append("\\b"); break;
                        case '\f': b.append("\\f"); break;
                        case '\u000B': b.append("\\v"); break;
                        default:
                            if (c == delimiter) b.append('\\');
                            b.append(c);
                    }
                }
            }
        }
        return b.append('\n').toString();
    }
}
