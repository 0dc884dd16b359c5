package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import io.macrodb.bench.tpcc.Tpcc;
import io.macrodb.bench.tpcw.TpcwLike;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mixes are what the paper and TPC-W say they are; configurations parse and label as documented. */
class MixAndConfigTest {

    @Test
    void tpccMixesHaveThePapersReadOnlyShares() {
        Tpcc t = new Tpcc(1, 0.01);
        assertEquals(0.08, t.mix("8-92").readOnlyShare(), 1e-9);
        assertEquals(0.08, t.mix("standard").readOnlyShare(), 1e-9);
        assertEquals(0.50, t.mix("50-50").readOnlyShare(), 1e-9);
        assertEquals(0.80, t.mix("80-20").readOnlyShare(), 1e-9);
        assertEquals(1.00, t.mix("100-0").readOnlyShare(), 1e-9);
        // the standard mix keeps the specification's 45/43/4/4/4
        Mix std = t.mix("8-92");
        assertEquals(0.45, std.share(0), 1e-9);
        assertEquals(0.43, std.share(1), 1e-9);
        Mix custom = t.mix("NewOrder=1,StockLevel=3");
        assertEquals(0.75, custom.readOnlyShare(), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> t.mix("browsing"));
        assertThrows(IllegalArgumentException.class, () -> t.mix("Nope=1"));
    }

    @Test
    void mixesAbove100PercentAreRefused() {
        Tpcc t = new Tpcc(1, 0.01);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.mix("80-30"));
        assertEquals("mix 80-30: read-only 80% + update 30% = 110%, above 100%; write shares that add up to 100 (e.g. 80-20)",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Micro(1000).mix("100-1"));
        assertTrue(e.getMessage().contains("= 101%, above 100%"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> t.mix("NewOrder=60,Payment=50"));
        assertTrue(e.getMessage().contains("weights add up to 110%, above 100%"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new TpcwLike(0.05).mix("BestSellers=70,Home=40"));
        assertTrue(e.getMessage().contains("above 100%"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> t.mix("NewOrder=-1,Payment=50"));
        assertTrue(e.getMessage().contains("must be >= 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> t.mix("NewOrder=lots"));
        assertTrue(e.getMessage().contains("not a number"), e.getMessage());
        // exactly 100, and proportions below it, still parse
        assertEquals(0.80, t.mix("80-20").readOnlyShare(), 1e-9);
        assertEquals(0.80, t.mix("8-2").readOnlyShare(), 1e-9);
        assertEquals(0.08, t.mix("NewOrder=45,Payment=43,OrderStatus=4,Delivery=4,StockLevel=4").readOnlyShare(), 1e-9);
    }

    @Test
    void drawnTypesFollowTheWeights() {
        Mix m = new Tpcc(1, 0.01).mix("80-20");
        Random r = new Random(1);
        int ro = 0, n = 100_000;
        for (int i = 0; i < n; i++) if (m.pick(r).readOnly()) ro++;
        assertEquals(0.80, ro / (double) n, 0.01);
    }

    @Test
    void tpcwMixesHaveTheirReadOnlyShares() {
        TpcwLike w = new TpcwLike(0.05);
        // TPC-W's 95/80/50% "browse" shares, plus the read-only interactions of its order category
        assertEquals(0.964, w.mix("browsing").readOnlyShare(), 0.001);
        assertEquals(0.841, w.mix("shopping").readOnlyShare(), 0.001);
        assertEquals(0.633, w.mix("ordering").readOnlyShare(), 0.001);
    }

    @Test
    void configurationsParse() {
        assertEquals("standalone", SystemConfig.parse("standalone", "leastActive", "strict").label());
        assertEquals("macrodb-4", SystemConfig.parse("macrodb:4", "leastActive", "strict").label());
        SystemConfig c = SystemConfig.parse("macrodb:4:freshest:bounded:5", "leastActive", "strict");
        assertEquals("freshest", c.balancer());
        assertEquals("macrodb-4-freshest-bounded_5", c.label());
        assertEquals("bounded:5", c.consistency());
        assertEquals("replicas=4&balancer=freshest&consistency=bounded", c.macroOptions(-1).substring(0, 48));
        assertEquals("independent-8", SystemConfig.parse("independent:8", null, null).label());
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("macrodb", null, null));
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("cluster:3", null, null));
        assertEquals("independent-4", BenchResults.independentRef("macrodb-4", List.of("standalone", "independent-2", "independent-4")));
        assertEquals("independent-4", BenchResults.independentRef("macrodb-8", List.of("independent-2", "independent-4")));
    }

    @Test
    void macrodbConfigurationsTakeUrlOptions() {
        SystemConfig off = SystemConfig.parse("macrodb:2:admission=off", "leastActive", "strict");
        assertEquals("leastActive", off.balancer());
        assertEquals("strict", off.consistency());
        assertEquals("admission=off", off.options());
        assertEquals("macrodb-2-admission=off", off.label());
        assertEquals("replicas=2&balancer=leastActive&consistency=strict&readWait=5&admission=off", off.macroOptions(5));
        assertNotEquals(SystemConfig.parse("macrodb:2", "leastActive", "strict"), off, "an option makes another configuration");

        // anywhere after N, several as parts of their own or &-joined; bounded:N keeps its colon
        SystemConfig c = SystemConfig.parse("macrodb:4:freshest:admission=2:bounded:5:applyThreads=1&maxLag=0", "leastActive", "strict");
        assertEquals("freshest", c.balancer());
        assertEquals("bounded:5", c.consistency());
        assertEquals("admission=2&applyThreads=1&maxLag=0", c.options());
        assertEquals("macrodb-4-freshest-bounded_5-admission=2-applyThreads=1-maxLag=0", c.label());
        assertEquals("replicas=4&balancer=freshest&consistency=bounded:5&admission=2&applyThreads=1&maxLag=0", c.macroOptions(-1));

        // readWait given as an option wins over the run's --read-wait
        assertEquals("replicas=2&balancer=leastActive&consistency=strict&readWait=0",
                SystemConfig.parse("macrodb:2:readWait=0", "leastActive", "strict").macroOptions(5));
        assertEquals("", SystemConfig.parse("macrodb:2", null, null).options());
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("macrodb:2:admission=", null, null));
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("macrodb:2:=off", null, null));
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("macrodb:2:replicas=3", null, null));
        assertThrows(IllegalArgumentException.class, () -> SystemConfig.parse("independent:2:admission=off", null, null));
    }
}
