package io.macrodb.boot;

import io.macrodb.jdbc.MacroProperty;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every driver option ({@link MacroProperty}, the driver's one table of options) is a {@code macrodb.*}
 * Spring property: MacroDbProperties has a setter for it, and a value set there reaches the URL
 * under the option's name. Fails when an option is added to the driver and not here.
 */
class MacroDbPropertiesTest {

    @Test
    void everyDriverOptionIsASpringProperty() throws Exception {
        List<String> missing = new ArrayList<>();
        for (MacroProperty p : MacroProperty.values()) {
            Method setter = null;
            for (Method m : MacroDbProperties.class.getMethods()) {
                if (m.getName().equals(p.setterName()) && m.getParameterCount() == 1) setter = m;
            }
            if (setter == null) {
                missing.add(p.optionName());
                continue;
            }
            MacroDbProperties props = new MacroDbProperties();
            Class<?> t = setter.getParameterTypes()[0];
            String example = p.example();
            Object value = t == Integer.class ? Integer.valueOf(example)
                    : t == Long.class ? Long.valueOf(example)
                    : t == Boolean.class ? Boolean.valueOf(example)
                    : t == Duration.class ? Duration.ofMillis(Long.parseLong(example))
                    : example;
            setter.invoke(props, value);
            assertEquals(example, props.urlOptions().get(p.optionName()), "macrodb property for " + p.optionName());
            assertEquals(1, props.urlOptions().size(), p.optionName() + " sets only itself");
        }
        assertTrue(missing.isEmpty(), "MacroDbProperties lacks a property for the driver options " + missing);
    }
}
