package io.macrodb.bench;

import io.macrodb.jdbc.MacroDriver;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The machine and JVM a benchmark ran on, the command that ran it, and what it ran: the driver's
 * version and the commits the driver and the benchmark were built from ({@link BuildCommit}: as
 * their builds recorded them, "unknown" where they did not; not the commit of whatever directory
 * the command ran in). Stored next to every result.
 */
public record Environment(String date, String host, String os, String cpuModel, int cores, String memory, String java,
                          String vm, List<String> jvmArguments, long maxHeapMiB, String command, String driverVersion,
                          BuildCommit driverBuild, BuildCommit benchBuild) {

    public static Environment capture(String command) {
        Runtime rt = Runtime.getRuntime();
        return new Environment(OffsetDateTime.now().withNano(0).toString(), readHost(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                readCpuModel(), rt.availableProcessors(), readMemory(),
                System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version", System.getProperty("java.version")),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"),
                ManagementFactory.getRuntimeMXBean().getInputArguments(), rt.maxMemory() >> 20, command, MacroDriver.VERSION,
                BuildCommit.of(MacroDriver.class), BuildCommit.of(Environment.class));
    }

    private static String readHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String readCpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String readMemory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .map(l -> l.replaceAll("\\D+", "")).map(kb -> (Long.parseLong(kb) >> 20) + " GiB").findFirst().orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
