package io.macrodb.apps.audit;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application whose schema Liquibase manages (db/changelog/db.changelog-master.yaml, Spring Boot's default). */
@SpringBootApplication
public class AuditApplication {
    public static void main(String[] args) {
        SpringApplication.run(AuditApplication.class, args);
    }
}
