package io.macrodb.replica;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adaptive admission limit follows throughput: against a simulated engine that serves one
 * transaction at a time best (each transaction takes longer the more run beside it, as HSQLDB's
 * MVCC does), a limit that starts too high comes down. Service times are sleeps, so the 2-core
 * machine's CPU does not decide the outcome.
 */
class AdmissionControllerTest {

    @Test void aLimitThatStartsTooHighComesDownWhenMoreConcurrencyServesLess() throws Exception {
        Admission admission = new Admission(3, true, 4);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    try (Admission.Permit p = admission.enter(10_000, "the simulated engine")) {
                        int running = admission.running();
                        Thread.sleep(running * running); // 1 ms alone, 4 ms beside one other, 9 ms beside two
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "simulated-client-" + i);
            t.setDaemon(true);
            clients.add(t);
            t.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
        int lowest = admission.limit();
        while (System.nanoTime() < deadline && admission.limit() > 1) {
            Thread.sleep(50);
            lowest = Math.min(lowest, admission.limit());
        }
        stop.set(true);
        for (Thread t : clients) t.join(5_000);
        int finalLimit = admission.limit();
        assertTrue(lowest == 1 || finalLimit <= 2, "the limit stayed at " + finalLimit + " (lowest " + lowest + ")");
        assertTrue(admission.waited() > 0);
    }
}
