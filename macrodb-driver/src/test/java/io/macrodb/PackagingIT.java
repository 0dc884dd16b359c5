package io.macrodb;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The published driver jar as an application gets it (macrodb-driver/pom.xml: shade, jar and failsafe
 * plugins). Run by failsafe after package ({@code mvn verify}, {@code mvn install}), not by surefire:
 * it reads target/macrodb-driver-*.jar and target/dependency-reduced-pom.xml.
 */
class PackagingIT {
    private static final String SHADED = "io/macrodb/shaded/jsqlparser/";

    private static Path driverJar() {
        Path jar = Path.of(System.getProperty("macrodb.driverJar", "target/macrodb-driver.jar"));
        assertTrue(Files.isRegularFile(jar), "no driver jar at " + jar + " (run after package)");
        return jar;
    }

    @Test
    void jarHoldsTheDriverAndTheRelocatedParserOnly() throws IOException {
        List<String> foreign = new ArrayList<>();
        List<String> unrelocatedReferences = new ArrayList<>();
        int shadedClasses = 0;
        try (JarFile jar = new JarFile(driverJar().toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                String name = entry.getName();
                // everything is MacroDB's or metadata: no net/sf/jsqlparser, org/openjdk/jmh,
                // org/apache/commons/math3, joptsimple, nor JSqlParser's stray jmh.properties, THIRD-PARTY, ...
                if (!name.startsWith("io/macrodb/") && !name.startsWith("META-INF/") && !name.equals("io/")) {
                    foreign.add(name);
                }
                if (name.startsWith("META-INF/") && name.endsWith(".class")) foreign.add(name); // module-info, versions/
                if (name.startsWith(SHADED) && name.endsWith(".class")) shadedClasses++;
                if (name.endsWith(".class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                        if (bytes.contains("net/sf/jsqlparser") || bytes.contains("org/openjdk/jmh")) {
                            unrelocatedReferences.add(name);
                        }
                    }
                }
            }
            assertNone(foreign, "entries outside io/macrodb/ and META-INF/");
            assertNone(unrelocatedReferences, "classes that still name net/sf/jsqlparser or JMH");
            assertTrue(shadedClasses > 100, "JSqlParser is not shaded in: " + shadedClasses + " classes under " + SHADED);

            Manifest manifest = jar.getManifest();
            assertNotNull(manifest, "no manifest");
            assertEquals("io.macrodb.driver", manifest.getMainAttributes().getValue("Automatic-Module-Name"));

            String license = text(jar, "META-INF/LICENSE");
            assertTrue(license.contains("Apache License") && license.contains("Version 2.0"), "META-INF/LICENSE is not Apache-2.0");
            assertTrue(text(jar, "META-INF/NOTICE").contains("JSqlParser"), "META-INF/NOTICE does not credit JSqlParser");
            assertEquals("io.macrodb.jdbc.MacroDriver", text(jar, "META-INF/services/java.sql.Driver").strip());
        }
    }

    private static void assertNone(List<String> found, String what) {
        assertTrue(found.isEmpty(), found.size() + " " + what + ", the first: " + found.subList(0, Math.min(10, found.size())));
    }

    private static String text(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertNotNull(entry, "no " + name + " in the jar");
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** What an application gets transitively: nothing but the optional engines. */
    @Test
    void publishedPomNamesNoRequiredDependency() throws Exception {
        File pom = new File(System.getProperty("macrodb.reducedPom", "target/dependency-reduced-pom.xml"));
        assertTrue(pom.isFile(), "no dependency-reduced POM at " + pom);
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom).getDocumentElement();
        NodeList dependencies = project.getElementsByTagName("dependency");
        List<String> required = new ArrayList<>();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            if (!(d.getParentNode() instanceof Element parent && parent.getTagName().equals("dependencies"))) continue;
            String id = child(d, "groupId") + ":" + child(d, "artifactId");
            assertTrue(!id.contains("jsqlparser"), "the published POM lists " + id);
            String scope = child(d, "scope");
            boolean transitive = scope == null || scope.equals("compile") || scope.equals("runtime");
            if (transitive && !"true".equals(child(d, "optional"))) required.add(id);
        }
        assertEquals(List.of(), required, "dependencies every application would get");
    }

    private static String child(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().strip();
    }

    /**
     * The jar works on its own: in a class loader with only the driver jar and H2 (parent: the platform
     * loader, so neither the test classpath's JSqlParser nor target/classes can stand in), a replica set
     * starts, and statements the classifier parses run, reads routed to a secondary.
     */
    @Test
    void jarRunsWithOnlyTheEngineBesideIt() throws Exception {
        URL h2 = org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {driverJar().toUri().toURL(), h2},
                ClassLoader.getPlatformClassLoader())) {
            Class.forName("org.h2.Driver", true, loader); // registers this loader's H2 with DriverManager
            Driver macro = null;
            for (Driver d : ServiceLoader.load(Driver.class, loader)) {
                if (d.getClass().getName().equals("io.macrodb.jdbc.MacroDriver") && d.getClass().getClassLoader() == loader) macro = d;
            }
            assertNotNull(macro, "the jar's META-INF/services does not register MacroDriver");
            Properties p = new Properties();
            p.setProperty("user", "sa");
            p.setProperty("password", "");
            try (Connection c = macro.connect("jdbc:macrodb:h2:mem:packaging_it?replicas=2", p);
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t(id INT PRIMARY KEY, v VARCHAR(20))");
                s.executeUpdate("INSERT INTO t VALUES (1, 'one'), (2, 'two')");
                try (ResultSet r = s.executeQuery("SELECT COUNT(*), MAX(v) FROM t WHERE id > 0")) {
                    assertTrue(r.next());
                    assertEquals(2, r.getInt(1));
                    assertEquals("two", r.getString(2));
                }
            }
        }
    }
}
