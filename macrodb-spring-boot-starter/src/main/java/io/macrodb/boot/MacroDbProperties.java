package io.macrodb.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * MacroDB's URL options as Spring properties ({@code macrodb.replicas=3}, {@code macrodb.read-wait=5ms}),
 * for an application that would rather not write them into {@code spring.datasource.url}. Each one
 * that is set is added to the URL of the {@code spring.datasource.*} DataSource when its URL starts
 * with {@code jdbc:macrodb:}; an option set both here and in the URL is refused at start, as the
 * driver refuses an option given twice. The README's "URL options" table says what each does; times
 * are Spring durations ({@code 5ms}, {@code 10s}) and reach the driver as milliseconds.
 */
@ConfigurationProperties(prefix = "macrodb")
public class MacroDbProperties {
    /** Replicas in all, primary included (1..64). Driver default: half the processors, at least 2, at most 8. */
    private Integer replicas;
    /** How updates reach the secondaries: row (default) or statement. */
    private String propagation;
    /** How fresh a secondary must be for a read-only transaction: strict (default), session, bounded:N or bounded:Nms. */
    private String consistency;
    /** Which fresh secondary a read-only transaction uses: leastActive (default), freshest or roundRobin. */
    private String balancer;
    /** How long a read-only transaction may wait for a secondary to catch up before running on the primary (driver default 5ms). */
    private Duration readWait;
    /** idle (default): a read no secondary can take at once runs on an idle primary; fallback: it waits for a secondary first. */
    private String primaryReads;
    /** Bound on every lock and turn wait; what times out fails with SQLState 40001 (driver default 10s). */
    private Duration lockTimeout;
    /** Most log records a behind secondary applies in one engine transaction (driver default 256). */
    private Integer applyGroup;
    /** Engine sessions each secondary applies the log with (1..64). */
    private Integer applyThreads;
    /** The lag bound: versions (e.g. 10000, the default), a time of apply work (e.g. 500ms), or 0 for none. */
    private String maxLag;
    /** Transactions each replica runs at once: auto (default), off, or a number. */
    private String admission;
    /** Whether a transaction that never calls setReadOnly starts on a secondary (driver default true). */
    private Boolean optimisticReads;
    /** none (default) or log:&lt;directory&gt;: keep the replication log and snapshots on disk. */
    private String durability;
    /** With durability=log: commit (default) or &lt;N&gt;ms. */
    private String fsync;
    /** With durability=log: log records between snapshots (driver default 100000). */
    private Long snapshotEvery;
    /** How long a secondary may stay behind without progress before it leaves the rotation (driver default 30s). */
    private Duration stallTimeout;
    /** auto (default) or manual: whether a failed secondary is rebuilt online. */
    private String rebuild;
    private String writers;
    /** How long the replica set stays open after its last connection: engine (default: as the engine keeps the database), -1, or seconds. */
    private String closeDelay;
    /** Register the replica set's MXBean in the platform MBeanServer (driver default false). */
    private Boolean jmx;
    /** Log each statement's replica and the reason (System.Logger io.macrodb.routing at DEBUG; driver default false). */
    private Boolean routingLog;

    /** The options that are set, by the driver's names, as the URL carries them. */
    public Map<String, String> urlOptions() {
        Map<String, String> o = new LinkedHashMap<>();
        put(o, "replicas", replicas);
        put(o, "propagation", propagation);
        put(o, "consistency", consistency);
        put(o, "balancer", balancer);
        put(o, "readWait", millis(readWait));
        put(o, "primaryReads", primaryReads);
        put(o, "lockTimeout", millis(lockTimeout));
        put(o, "applyGroup", applyGroup);
        put(o, "applyThreads", applyThreads);
        put(o, "maxLag", maxLag);
        put(o, "admission", admission);
        put(o, "optimisticReads", optimisticReads);
        put(o, "durability", durability);
        put(o, "fsync", fsync);
        put(o, "snapshotEvery", snapshotEvery);
        put(o, "stallTimeout", millis(stallTimeout));
        put(o, "rebuild", rebuild);
        put(o, "writers", writers);
        put(o, "closeDelay", closeDelay);
        put(o, "jmx", jmx);
        put(o, "routingLog", routingLog);
        return o;
    }

    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }

    private static void put(Map<String, String> o, String name, Object value) {
        if (value != null && !value.toString().isBlank()) o.put(name, value.toString().trim());
    }

    public Integer getReplicas() { return replicas; }
    public void setReplicas(Integer replicas) { this.replicas = replicas; }
    public String getPropagation() { return propagation; }
    public void setPropagation(String propagation) { this.propagation = propagation; }
    public String getConsistency() { return consistency; }
    public void setConsistency(String consistency) { this.consistency = consistency; }
    public String getBalancer() { return balancer; }
    public void setBalancer(String balancer) { this.balancer = balancer; }
    public Duration getReadWait() { return readWait; }
    public void setReadWait(Duration readWait) { this.readWait = readWait; }
    public String getPrimaryReads() { return primaryReads; }
    public void setPrimaryReads(String primaryReads) { this.primaryReads = primaryReads; }
    public Duration getLockTimeout() { return lockTimeout; }
    public void setLockTimeout(Duration lockTimeout) { this.lockTimeout = lockTimeout; }
    public Integer getApplyGroup() { return applyGroup; }
    public void setApplyGroup(Integer applyGroup) { this.applyGroup = applyGroup; }
    public Integer getApplyThreads() { return applyThreads; }
    public void setApplyThreads(Integer applyThreads) { this.applyThreads = applyThreads; }
    public String getMaxLag() { return maxLag; }
    public void setMaxLag(String maxLag) { this.maxLag = maxLag; }
    public String getAdmission() { return admission; }
    public void setAdmission(String admission) { this.admission = admission; }
    public Boolean getOptimisticReads() { return optimisticReads; }
    public void setOptimisticReads(Boolean optimisticReads) { this.optimisticReads = optimisticReads; }
    public String getDurability() { return durability; }
    public void setDurability(String durability) { this.durability = durability; }
    public String getFsync() { return fsync; }
    public void setFsync(String fsync) { this.fsync = fsync; }
    public Long getSnapshotEvery() { return snapshotEvery; }
    public void setSnapshotEvery(Long snapshotEvery) { this.snapshotEvery = snapshotEvery; }
    public Duration getStallTimeout() { return stallTimeout; }
    public void setStallTimeout(Duration stallTimeout) { this.stallTimeout = stallTimeout; }
    public String getRebuild() { return rebuild; }
    public void setRebuild(String rebuild) { this.rebuild = rebuild; }
    public String getWriters() { return writers; }
    public void setWriters(String writers) { this.writers = writers; }
    public String getCloseDelay() { return closeDelay; }
    public void setCloseDelay(String closeDelay) { this.closeDelay = closeDelay; }
    public Boolean getJmx() { return jmx; }
    public void setJmx(Boolean jmx) { this.jmx = jmx; }
    public Boolean getRoutingLog() { return routingLog; }
    public void setRoutingLog(Boolean routingLog) { this.routingLog = routingLog; }
}
