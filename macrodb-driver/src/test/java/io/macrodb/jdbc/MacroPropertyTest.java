package io.macrodb.jdbc;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The one table of options, {@link MacroProperty}, against everything that shows an option: the
 * README's "URL options" table (parsed here, row by row), {@link MacroDataSource}'s setters and
 * getters, {@link MacroDriver#getPropertyInfo}, parsing (every example accepted, bad values refused
 * with 08001 naming the option), and the scope (a database option refused on a second connection
 * that asks for another value, a connection option accepted).
 *
 * <p>After changing the table, regenerate the README's table with
 * {@code mvn -B -o -pl macrodb-driver surefire:test@default-test -Dtest=MacroPropertyTest -Dmacrodb.regenerateDocs=true}
 * and review the diff.
 */
class MacroPropertyTest {

    /** MacroDataSource setters that are not options. */
    private static final Set<String> OTHER_SETTERS = Set.of("setUrl", "setUser", "setPassword", "setEngineProperty",
            "setLogWriter", "setLoginTimeout");

    // ---------------------------------------------------------------- README

    static Path readme() {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.isDirectory(here.resolve("macrodb-driver")) ? here : here.getParent();
        return root.resolve("README.md");
    }

    /** The lines of the README's options table: from its header to the first line that is not a table row. */
    private static int[] tableLines(List<String> lines) {
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("| option |")) {
                if (start >= 0) fail("README.md has two tables starting with '| option |' (lines " + (start + 1) + " and " + (i + 1) + ")");
                start = i;
            }
        }
        if (start < 0) fail("README.md has no URL options table (a line starting with '| option |')");
        int end = start;
        while (end < lines.size() && lines.get(end).startsWith("|")) end++;
        return new int[] {start, end};
    }

    private static List<String> cells(String row) {
        String r = row.trim();
        if (!r.startsWith("|") || !r.endsWith("|")) fail("not a table row: " + row);
        List<String> out = new ArrayList<>();
        for (String c : r.substring(1, r.length() - 1).split("\\|", -1)) out.add(c.trim());
        return out;
    }

    @Test
    void theReadmeTableHasOneCurrentRowPerOption() throws Exception {
        Path path = readme();
        List<String> lines = new ArrayList<>(Files.readAllLines(path, StandardCharsets.UTF_8));
        int[] t = tableLines(lines);
        if (Boolean.getBoolean(JdbcCompatibilityTableTest.REGENERATE_PROPERTY)) {
            List<String> out = new ArrayList<>(lines.subList(0, t[0]));
            out.addAll(Arrays.asList(MacroProperty.readmeTable().split("\n")));
            out.addAll(lines.subList(t[1], lines.size()));
            Files.write(path, out, StandardCharsets.UTF_8);
            System.out.println("Wrote the URL options table of " + path);
            return;
        }
        assertEquals(MacroProperty.README_HEADER, lines.get(t[0]), "README.md: the options table's header");
        List<String> header = cells(MacroProperty.README_HEADER);
        Map<String, List<String>> rows = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (int i = t[0] + 2; i < t[1]; i++) {
            List<String> c = cells(lines.get(i));
            if (c.size() != header.size()) {
                problems.add("line " + (i + 1) + " has " + c.size() + " cells, the header " + header.size() + ": " + lines.get(i));
                continue;
            }
            String name = c.get(0).replace("`", "");
            if (rows.put(name, c) != null) problems.add("line " + (i + 1) + ": a second row for " + name);
            if (MacroProperty.forName(name) == null || !MacroProperty.forName(name).optionName().equals(name)) {
                problems.add("line " + (i + 1) + ": no option '" + name + "' in MacroProperty (a stale row): " + lines.get(i));
            }
        }
        for (MacroProperty p : MacroProperty.values()) {
            List<String> c = rows.get(p.optionName());
            List<String> want = cells(p.readmeRow());
            if (c == null) {
                problems.add("no row for option " + p.optionName() + "; add: " + p.readmeRow());
            } else {
                for (int k = 1; k < header.size(); k++) {
                    if (!want.get(k).equals(c.get(k))) {
                        problems.add(p.optionName() + ": column '" + header.get(k) + "' says '" + c.get(k) + "', MacroProperty '"
                                + want.get(k) + "'");
                    }
                }
            }
        }
        List<String> order = new ArrayList<>(rows.keySet());
        if (problems.isEmpty() && !order.equals(MacroProperty.names())) {
            problems.add("rows in another order than MacroProperty: " + order);
        }
        if (!problems.isEmpty()) {
            fail("README.md's URL options table disagrees with MacroProperty:\n  " + String.join("\n  ", problems)
                    + "\nRegenerate it with  mvn -B -o -pl macrodb-driver surefire:test@default-test -Dtest=MacroPropertyTest -D"
                    + JdbcCompatibilityTableTest.REGENERATE_PROPERTY + "=true  and review the diff.");
        }
    }

    @Test
    void theReadmeSaysWhichOptionsBelongToTheDatabase() throws Exception {
        String text = Files.readString(readme(), StandardCharsets.UTF_8);
        assertTrue(text.contains("Options that belong to the **database**"), "README.md explains the 'belongs to' column");
    }

    // ---------------------------------------------------------------- MacroDataSource

    @ParameterizedTest
    @EnumSource(MacroProperty.class)
    void theDataSourceHasASetterAndAGetter(MacroProperty p) throws Exception {
        Method setter;
        Method getter;
        try {
            setter = MacroDataSource.class.getMethod(p.setterName(), p.type());
        } catch (NoSuchMethodException e) {
            throw new AssertionError("MacroDataSource lacks public void " + p.setterName() + "(" + p.type().getSimpleName()
                    + ") for option " + p.optionName());
        }
        try {
            getter = MacroDataSource.class.getMethod(p.getterName());
        } catch (NoSuchMethodException e) {
            throw new AssertionError("MacroDataSource lacks public " + p.type().getSimpleName() + " " + p.getterName()
                    + "() for option " + p.optionName());
        }
        assertEquals(p.type(), getter.getReturnType(), p.getterName() + "'s type (a bean property needs the setter's type)");

        MacroDataSource ds = new MacroDataSource();
        ds.setUrl("jdbc:macrodb:h2:mem:x");
        if (p.defaultValue() != null) {
            assertEquals(typed(p, p.defaultValue()), getter.invoke(ds), p.getterName() + " before any setter: the default");
        }
        setter.invoke(ds, typed(p, p.example()));
        assertEquals(typed(p, p.example()), getter.invoke(ds), p.getterName() + " after " + p.setterName());
        assertEquals("jdbc:macrodb:h2:mem:x?" + p.optionName() + "=" + MacroConfig.encode(p.example()), ds.effectiveUrl(),
                p.setterName() + " sets option " + p.optionName());

        MacroDataSource fromUrl = new MacroDataSource();
        fromUrl.setUrl("jdbc:macrodb:h2:mem:x?" + p.optionName() + "=" + MacroConfig.encode(p.example()));
        assertEquals(typed(p, p.example()), getter.invoke(fromUrl), p.getterName() + " reads the URL's value");
    }

    @Test
    void everyDataSourceSetterIsAnOptionOrAKnownProperty() {
        Set<String> unknown = new TreeSet<>();
        for (Method m : MacroDataSource.class.getMethods()) {
            if (!m.getName().startsWith("set") || m.getParameterCount() != 1 || !Modifier.isPublic(m.getModifiers())) continue;
            if (OTHER_SETTERS.contains(m.getName())) continue;
            boolean option = Arrays.stream(MacroProperty.values()).anyMatch(p -> p.setterName().equals(m.getName()));
            if (!option) unknown.add(m.getName());
        }
        assertTrue(unknown.isEmpty(), "MacroDataSource setters with no MacroProperty: " + unknown);
    }

    @Test
    void gettersOfComputedDefaultsGiveWhatTheDriverChooses() {
        MacroDataSource ds = new MacroDataSource();
        ds.setUrl("jdbc:macrodb:h2:mem:x");
        assertEquals(MacroConfig.defaultReplicas(), ds.getReplicas());
        assertEquals(MacroConfig.defaultApplyThreads(new io.macrodb.engine.H2Engine(), ds.getReplicas()), ds.getApplyThreads());
        ds.setUrl("jdbc:macrodb:hsqldb:mem:x?replicas=3");
        assertEquals(3, ds.getReplicas());
        assertEquals(MacroConfig.defaultApplyThreads(new io.macrodb.engine.HsqldbEngine(), 3), ds.getApplyThreads());
    }

    private static Object typed(MacroProperty p, String v) {
        if (p.type() == int.class) return Integer.parseInt(v);
        if (p.type() == long.class) return Long.parseLong(v);
        if (p.type() == boolean.class) return Boolean.parseBoolean(v);
        return v;
    }

    // ---------------------------------------------------------------- getPropertyInfo

    @Test
    void getPropertyInfoReportsTheTable() throws Exception {
        Properties info = new Properties();
        info.setProperty("CONSISTENCY", "session"); // canonical name, any case
        info.setProperty("user", "sa");
        DriverPropertyInfo[] got = new MacroDriver().getPropertyInfo("jdbc:macrodb:h2:mem:x?replicas=3&readWait=7", info);
        MacroProperty[] all = MacroProperty.values();
        assertEquals(all.length, got.length, "one DriverPropertyInfo per option");
        for (int i = 0; i < all.length; i++) {
            MacroProperty p = all[i];
            DriverPropertyInfo d = got[i];
            assertEquals(p.optionName(), d.name);
            assertEquals(p.description(), d.description);
            assertTrue(d.description.contains(p.doc().replace("`", "").substring(1)), d.description);
            assertEquals(false, d.required);
            if (p.choices().isEmpty()) assertNull(d.choices, p.optionName());
            else assertArrayEquals(p.choices().toArray(new String[0]), d.choices, p.optionName());
            String expected = switch (p) {
                case REPLICAS -> "3";
                case READ_WAIT -> "7";
                case CONSISTENCY -> "session";
                default -> p.defaultValue();
            };
            assertEquals(expected, d.value, p.optionName() + "'s value");
        }
    }

    // ---------------------------------------------------------------- parsing

    private static String with(MacroProperty p, String value, Path dir) {
        StringBuilder q = new StringBuilder("replicas=2");
        if (p == MacroProperty.REPLICAS) q = new StringBuilder();
        if ((p == MacroProperty.FSYNC || p == MacroProperty.SNAPSHOT_EVERY) && dir != null) {
            q.append("&durability=").append(MacroConfig.encode("log:" + dir));
        }
        if (value != null) {
            String v = p == MacroProperty.DURABILITY && value.startsWith("log:") && dir != null ? "log:" + dir : value;
            q.append(q.length() == 0 ? "" : "&").append(p.optionName()).append('=').append(MacroConfig.encode(v));
        }
        return TestDb.url("h2", q.toString());
    }

    @ParameterizedTest
    @EnumSource(MacroProperty.class)
    void theExampleAndTheDefaultParse(MacroProperty p) throws Exception {
        Path dir = Files.createTempDirectory("macrodb-prop");
        try {
            MacroConfig.parse(with(p, p.example(), dir), null);
            if (p.defaultValue() != null) MacroConfig.parse(with(p, p.defaultValue(), dir), null);
            for (String c : p.choices()) MacroConfig.parse(with(p, c.toUpperCase(java.util.Locale.ROOT), dir), null);
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @ParameterizedTest
    @EnumSource(MacroProperty.class)
    void aBadValueIs08001NamingTheOptionAndWhatItTakes(MacroProperty p) {
        List<String> bad = new ArrayList<>(List.of("nonsense"));
        if (p.type() == int.class || p.type() == long.class) {
            bad.add(Long.toString(p.min() - 1));
            if (p.max() < Integer.MAX_VALUE) bad.add(Long.toString(p.max() + 1));
        }
        for (String v : bad) {
            SQLException e = assertThrows(SQLException.class, () -> MacroConfig.parse(with(p, v, Path.of("/tmp/x")), null),
                    p.optionName() + "=" + v);
            assertEquals("08001", e.getSQLState(), e::toString);
            assertTrue(e.getMessage().contains(p.optionName()), e::getMessage);
            assertTrue(e.getMessage().contains(p.optionName() + "='" + v + "'"), e::getMessage);
            if (!p.choices().isEmpty()) {
                for (String c : p.choices()) assertTrue(e.getMessage().contains(c), e::getMessage);
            }
            if (p.type() == int.class || p.type() == long.class) {
                assertTrue(e.getMessage().contains(p.min() + " to " + p.max()), e::getMessage);
            }
        }
    }

    @Test
    void anUnknownOptionListsEveryOption() {
        SQLException e = assertThrows(SQLException.class, () -> MacroConfig.parse(TestDb.url("h2", "replica=2"), null));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains(String.join(", ", MacroProperty.names())), e::getMessage);
    }

    // ---------------------------------------------------------------- scope

    /**
     * A database option: a second connection asking for another value is refused (08001, "already
     * open"). A connection option: it is accepted. Checks the table's scope against the replica set.
     */
    @ParameterizedTest
    @EnumSource(MacroProperty.class)
    void theScopeIsWhatASecondConnectionFinds(MacroProperty p) throws Exception {
        Path dir = Files.createTempDirectory("macrodb-scope");
        try {
            String first = with(p, p.example(), dir);
            String other = p.defaultValue() != null ? p.defaultValue()
                    : Long.toString(Long.parseLong(p.example()) == p.min() ? p.min() + 1 : p.min());
            String second = first.replace(p.optionName() + "=" + MacroConfig.encode(p.example().startsWith("log:") ? "log:" + dir : p.example()),
                    p.optionName() + "=" + MacroConfig.encode(other));
            if (p == MacroProperty.DURABILITY) second = first.substring(0, first.indexOf('?')) + "?replicas=2";
            assertTrue(!second.equals(first), second);
            try (Connection c = TestDb.open(first)) {
                assertNotNull(c);
                if (p.scope() == MacroProperty.Scope.DATABASE) {
                    String s = second;
                    SQLException e = assertThrows(SQLException.class, () -> TestDb.open(s).close(),
                            p.optionName() + " belongs to the database: " + s);
                    assertEquals("08001", e.getSQLState(), e::toString);
                    assertTrue(e.getMessage().contains("already open"), e::getMessage);
                } else {
                    try (Connection again = TestDb.open(second)) {
                        assertNotNull(again, p.optionName() + " may differ per connection");
                    }
                }
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
