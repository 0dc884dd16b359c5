package io.macrodb.apps.audit;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

import java.util.List;

@Repository
public class Notes {
    private final JdbcTemplate jdbc;

    public Notes(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Transactional
    public void add(long id, String text) {
        jdbc.update("INSERT INTO note (id, text) VALUES (?, ?)", id, text);
    }

    @Transactional(readOnly = true)
    public List<String> texts() {
        return jdbc.queryForList("SELECT text FROM note ORDER BY id", String.class);
    }
}
