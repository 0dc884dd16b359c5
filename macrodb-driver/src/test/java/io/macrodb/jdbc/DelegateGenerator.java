package io.macrodb.jdbc;

import java.io.IOException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.CallableStatement;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Writes the source of {@code DelegatingResultSet}, {@code DelegatingCallableStatement} and
 * {@code DelegatingDatabaseMetaData} by reflection over the {@code java.sql} interface each implements (the
 * committed files are this program's output; {@link DelegatingClassesAreGeneratedTest} checks that they are).
 * It plays the part of HikariCP's build-time proxy generation, as a plain program that a reviewer can read.
 *
 * <p>Each class is abstract and has one method per public, non-static method of its interface (inherited
 * ones and default methods included, so that a default such as {@code Statement.enquoteLiteral} reaches the
 * engine's own implementation instead of the JDK's), except the methods its {@link Spec} leaves out: those
 * stay abstract, so a subclass must implement them. A method hands its arguments, named {@code a0, a1, ...},
 * straight to {@code delegate}; its {@code throws} clause is the interface's (so {@code
 * DatabaseMetaData.getDriverMajorVersion()} has none). In {@code DelegatingResultSet} a method that throws
 * {@link SQLException} passes it through the {@code failure(SQLException)} hook on its way out.
 *
 * <p>Output is deterministic: methods are sorted by name, then by their rendered parameter types compared
 * position by position, where a method whose parameter list is a prefix of another's comes after it (e.g.
 * {@code getDate(int, Calendar)} before {@code getDate(int)}) unless it has no parameters (then it comes
 * first); that is the order the classes had before this generator existed, kept so that no method moved. The interfaces are the running
 * JDK's, so a JDK that adds methods to them changes the output (the build uses Java 17).
 *
 * <p>Run: {@code mvn -B -o -pl macrodb-driver test -Dtest=DelegatingClassesAreGeneratedTest
 * -Dmacrodb.regenerate=true}, or {@code main} with the source folder of {@code io.macrodb.jdbc} as argument.
 */
public final class DelegateGenerator {

    /** The command that rewrites the generated files, named in their headers and in the test's failure. */
    public static final String REGENERATE_COMMAND =
            "mvn -B -o -pl macrodb-driver test -Dtest=DelegatingClassesAreGeneratedTest -Dmacrodb.regenerate=true";

    /** The package folder of the generated files, relative to the repository root. */
    public static final String SOURCE_FOLDER = "macrodb-driver/src/main/java/io/macrodb/jdbc";

    /**
     * How one class is generated.
     *
     * @param iface        the interface it forwards
     * @param description  first line of its Javadoc
     * @param finalDelegate whether {@code delegate} is final ({@code MacroResultSet.switchTo} replaces a
     *                     result set's delegate when its transaction moves to the primary)
     * @param failureHook  whether it has the {@code failure(SQLException)} hook that every forwarded method's
     *                     SQLException goes through ({@code MacroResultSet} turns a gone secondary's errors
     *                     into 40001 there)
     * @param callHook     whether every forwarded method that may throw SQLException goes through the
     *                     {@code call(Call)} hook, which runs it on a delegate of the subclass's choice
     *                     ({@code MacroDatabaseMetaData} runs it on the primary's current session, so that a
     *                     metadata object outlives a failover)
     * @param omitted      names of the methods (every overload) that are not forwarded: blind forwarding would
     *                     be wrong for them, so they stay abstract and the subclass implements them
     */
    record Spec(Class<?> iface, String description, boolean finalDelegate, boolean failureHook, boolean callHook, Set<String> omitted) {
        String className() {
            return "Delegating" + iface.getSimpleName();
        }
    }

    /**
     * The three classes. What the omitted methods have in common: forwarding them would hand the application
     * an engine object or let it act on the engine behind MacroDB's back.
     * <ul>
     * <li>All: {@code unwrap}/{@code isWrapperFor} (they answer for the MacroDB object first) and, where the
     * interface has them, {@code close} and the getters of the owning object ({@code getStatement},
     * {@code getConnection}), which must return MacroDB's object, not the engine's.</li>
     * <li>ResultSet: {@code insertRow}, {@code updateRow}, {@code deleteRow} are writes, which MacroDB
     * captures for replication ({@code Transaction.captureWrite}).</li>
     * <li>CallableStatement: every way to execute ({@code execute*}, {@code addBatch}) goes through
     * MacroDB's routing and capture; result sets it yields ({@code getResultSet}, {@code getGeneratedKeys},
     * and {@code getMoreResults}, which closes them) are MacroDB's wrappers; closing state
     * ({@code isClosed}, {@code closeOnCompletion}, {@code isCloseOnCompletion}) is MacroDB's own.</li>
     * </ul>
     */
    static final List<Spec> SPECS = List.of(
            new Spec(ResultSet.class, "A ResultSet that forwards to an engine's result set.", false, true, false,
                    names("close", "getStatement", "unwrap", "isWrapperFor",
                            "insertRow", "updateRow", "deleteRow")),
            new Spec(CallableStatement.class, "A CallableStatement that forwards to a statement on the primary.", true, false, false,
                    names("close", "getConnection", "unwrap", "isWrapperFor",
                            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
                            "addBatch", "executeBatch", "executeLargeBatch",
                            "getResultSet", "getGeneratedKeys", "getMoreResults",
                            "isClosed", "closeOnCompletion", "isCloseOnCompletion")),
            new Spec(DatabaseMetaData.class, "DatabaseMetaData that forwards to the primary's metadata.", true, false, true,
                    names("getConnection", "unwrap", "isWrapperFor")));

    private static Set<String> names(String... names) {
        return new TreeSet<>(Arrays.asList(names));
    }

    private DelegateGenerator() {
    }

    /** The generated files: file name to content. */
    public static Map<String, String> generateAll() {
        Map<String, String> files = new LinkedHashMap<>();
        for (Spec spec : SPECS) files.put(spec.className() + ".java", generate(spec));
        return files;
    }

    static String generate(Spec spec) {
        String iface = spec.iface().getName();
        List<Method> methods = forwarded(spec);
        StringBuilder out = new StringBuilder();
        out.append("// GENERATED FILE: DO NOT EDIT BY HAND.\n");
        out.append("// Generated by io.macrodb.jdbc.DelegateGenerator (macrodb-driver/src/test/java) by reflection over ")
                .append(iface).append(".\n");
        out.append("// To change it, change the generator and regenerate (DelegatingClassesAreGeneratedTest fails until then):\n");
        out.append("//   ").append(REGENERATE_COMMAND).append("\n");
        out.append("package io.macrodb.jdbc;\n\n");
        out.append("import java.sql.*;\n\n");
        out.append("/**\n");
        out.append(" * ").append(spec.description()).append("\n");
        out.append(" * Generated from {@link ").append(iface).append("}: every method hands straight to the delegate;\n");
        out.append(" * subclasses override the few that matter to MacroDB.\n");
        javadoc(out, "Left abstract, as forwarding them would bypass MacroDB: " + String.join(", ", spec.omitted()) + ".");
        out.append(" */\n");
        out.append("@SuppressWarnings({\"deprecation\", \"unchecked\"})\n");
        out.append("abstract class ").append(spec.className()).append(" implements ").append(iface).append(" {\n");
        out.append("    protected ").append(spec.finalDelegate() ? "final " : "").append(iface).append(" delegate;\n\n");
        out.append("    protected ").append(spec.className()).append("(").append(iface).append(" delegate) {\n");
        out.append("        this.delegate = delegate;\n");
        out.append("    }\n");
        if (spec.failureHook()) {
            out.append("\n");
            out.append("    /** What an engine exception becomes on its way to the application (itself by default). */\n");
            out.append("    protected SQLException failure(SQLException e) {\n");
            out.append("        return e;\n");
            out.append("    }\n");
        }
        if (spec.callHook()) {
            out.append("\n");
            out.append("    /** One forwarded call, to run on a delegate. */\n");
            out.append("    @FunctionalInterface\n");
            out.append("    protected interface Call<T> {\n");
            out.append("        T on(").append(iface).append(" delegate) throws SQLException;\n");
            out.append("    }\n");
            out.append("\n");
            out.append("    /** Runs every forwarded method that may throw SQLException (on {@code delegate} by default). */\n");
            out.append("    protected <T> T call(Call<T> c) throws SQLException {\n");
            out.append("        return c.on(delegate);\n");
            out.append("    }\n");
        }
        for (Method m : methods) {
            out.append("\n");
            method(out, m, spec.failureHook(), spec.callHook());
        }
        out.append("}\n");
        return out.toString();
    }

    /** The interface's methods to forward, one per signature, in output order. */
    static List<Method> forwarded(Spec spec) {
        Map<String, Method> bySignature = new LinkedHashMap<>();
        for (Method m : spec.iface().getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || spec.omitted().contains(m.getName())) continue;
            String signature = m.getName() + Arrays.toString(m.getParameterTypes());
            Method seen = bySignature.get(signature);
            // An interface may redeclare an inherited method; keep the most specific declaration.
            if (seen == null || seen.getDeclaringClass().isAssignableFrom(m.getDeclaringClass())) bySignature.put(signature, m);
        }
        for (String name : spec.omitted()) {
            if (Arrays.stream(spec.iface().getMethods()).noneMatch(m -> m.getName().equals(name))) {
                throw new IllegalStateException(spec.iface().getName() + " has no method " + name + " to leave out");
            }
        }
        List<Method> methods = new ArrayList<>(bySignature.values());
        methods.sort(Comparator.comparing(Method::getName).thenComparing(DelegateGenerator::parameterTypes, DelegateGenerator::compareParameters));
        return methods;
    }

    private static List<String> parameterTypes(Method m) {
        return Arrays.stream(m.getGenericParameterTypes()).map(DelegateGenerator::type).collect(Collectors.toList());
    }

    /**
     * No parameters first; otherwise position by position, and a list that is a prefix of the other comes
     * after it. An odd order, but the one the committed classes were in before this generator existed:
     * keeping it meant regenerating moved no method.
     */
    private static int compareParameters(List<String> a, List<String> b) {
        if (a.isEmpty() || b.isEmpty()) return Boolean.compare(!a.isEmpty(), !b.isEmpty());
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(b.size(), a.size());
    }

    private static void method(StringBuilder out, Method m, boolean failureHook, boolean callHook) {
        List<String> types = parameterTypes(m);
        List<String> params = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            params.add(types.get(i) + " a" + i);
            args.add("a" + i);
        }
        String typeParameters = Arrays.stream(m.getTypeParameters()).map(DelegateGenerator::typeParameter)
                .collect(Collectors.joining(", "));
        List<String> exceptions = Arrays.stream(m.getGenericExceptionTypes()).map(DelegateGenerator::type)
                .collect(Collectors.toList());
        out.append("    @Override public ")
                .append(typeParameters.isEmpty() ? "" : "<" + typeParameters + "> ")
                .append(type(m.getGenericReturnType())).append(' ').append(m.getName())
                .append('(').append(String.join(", ", params)).append(')')
                .append(exceptions.isEmpty() ? "" : " throws " + String.join(", ", exceptions))
                .append(" {\n");
        boolean throwsSqlException = Arrays.stream(m.getExceptionTypes()).anyMatch(e -> e.isAssignableFrom(SQLException.class));
        String invocation = m.getName() + "(" + String.join(", ", args) + ")";
        String call;
        if (callHook && throwsSqlException) {
            call = m.getReturnType() == void.class
                    ? "call(d -> {\n            d." + invocation + ";\n            return null;\n        });\n"
                    : "return call(d -> d." + invocation + ");\n";
        } else {
            call = (m.getReturnType() == void.class ? "" : "return ") + "delegate." + invocation + ";\n";
        }
        if (failureHook && throwsSqlException) {
            out.append("        try {\n");
            out.append("            ").append(call);
            out.append("        } catch (SQLException e) {\n");
            out.append("            throw failure(e);\n");
            out.append("        }\n");
        } else {
            out.append("        ").append(call);
        }
        out.append("    }\n");
    }

    /** One Javadoc paragraph, wrapped at 110 columns. */
    private static void javadoc(StringBuilder out, String text) {
        StringBuilder line = new StringBuilder(" *");
        for (String word : text.split(" ")) {
            if (line.length() + 1 + word.length() > 110) {
                out.append(line).append('\n');
                line = new StringBuilder(" *");
            }
            line.append(' ').append(word);
        }
        out.append(line).append('\n');
    }

    private static String typeParameter(TypeVariable<?> v) {
        List<String> bounds = Arrays.stream(v.getBounds()).filter(b -> b != Object.class).map(DelegateGenerator::type)
                .collect(Collectors.toList());
        return bounds.isEmpty() ? v.getName() : v.getName() + " extends " + String.join(" & ", bounds);
    }

    /**
     * Source text of a type: java.lang types (and SQLException, which {@code import java.sql.*} names) by
     * simple name, others fully qualified, generics as declared.
     */
    static String type(Type t) {
        if (t instanceof Class<?> c) {
            if (c.isArray()) return type(c.getComponentType()) + "[]";
            if (c.isPrimitive()) return c.getName();
            if (c == SQLException.class) return "SQLException";
            if (c.getPackageName().equals("java.lang") && c.getEnclosingClass() == null) return c.getSimpleName();
            return c.getCanonicalName();
        }
        if (t instanceof ParameterizedType p) {
            return type(p.getRawType()) + Arrays.stream(p.getActualTypeArguments()).map(DelegateGenerator::type)
                    .collect(Collectors.joining(", ", "<", ">"));
        }
        if (t instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) return "? super " + type(w.getLowerBounds()[0]);
            Type upper = w.getUpperBounds()[0];
            return upper == Object.class ? "?" : "? extends " + type(upper);
        }
        if (t instanceof TypeVariable<?> v) return v.getName();
        if (t instanceof GenericArrayType g) return type(g.getGenericComponentType()) + "[]";
        throw new IllegalArgumentException("type " + t);
    }

    /** Writes the files into {@code folder} (the source folder of io.macrodb.jdbc); returns those it changed. */
    public static List<Path> write(Path folder) throws IOException {
        List<Path> changed = new ArrayList<>();
        for (Map.Entry<String, String> f : generateAll().entrySet()) {
            Path file = folder.resolve(f.getKey());
            byte[] content = f.getValue().getBytes(StandardCharsets.UTF_8);
            if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), content)) continue;
            Files.write(file, content);
            changed.add(file);
        }
        return changed;
    }

    /** Usage: DelegateGenerator [source folder of io.macrodb.jdbc], by default {@value #SOURCE_FOLDER}. */
    public static void main(String[] args) throws IOException {
        Path folder = Paths.get(args.length > 0 ? args[0] : SOURCE_FOLDER);
        for (Path p : write(folder)) System.out.println("wrote " + p);
    }
}
