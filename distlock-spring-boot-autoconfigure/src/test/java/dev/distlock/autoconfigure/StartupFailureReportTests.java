package dev.distlock.autoconfigure;

import dev.distlock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * What a developer sees when an application cannot start because of distlock: Spring Boot's "APPLICATION FAILED TO
 * START" report with a Description naming the method, expression or property and an Action saying what to do, not a
 * chain of bean creation errors. Real {@link SpringApplication}s on this module's class path, which has no lock store
 * (no store starter), as an application that forgot one.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTests {

    private static String report(CapturedOutput output, Class<?> application, String... properties) {
        SpringApplication app = new SpringApplication(application);
        app.setWebApplicationType(WebApplicationType.NONE);
        String[] args = new String[properties.length + 1];
        args[0] = "--spring.main.banner-mode=off";
        for (int i = 0; i < properties.length; i++) {
            args[i + 1] = "--" + properties[i];
        }
        assertThatException().isThrownBy(() -> app.run(args).close());
        String all = output.getAll();
        int start = all.lastIndexOf("APPLICATION FAILED TO START");
        assertThat(start).as("Boot's failure report in:%n%s", all).isNotNegative();
        return all.substring(start);
    }

    @Test
    void badKeyIsReportedNamingMethodAndExpression(CapturedOutput output) {
        String report = report(output, BadKeyApplication.class);

        assertThat(report).contains("Description:", "The @DistributedLock annotation on "
                + BadKey.class.getName() + ".deduct is invalid", "key '#prodId' refers to #prodId, which is not a "
                + "parameter of the method (parameters: productId, quantity)")
                .contains("Action:", "Fix the key expression: refer to the method's parameters by name")
                .doesNotContain("Unexpected AOP exception");
    }

    @Test
    void badDurationInTheAnnotationIsReportedNamingAttributeAndValue(CapturedOutput output) {
        String report = report(output, BadDurationApplication.class);

        assertThat(report).contains("Description:", "The @DistributedLock annotation on "
                + BadDuration.class.getName() + ".run is invalid", "waitTime 'soon' is not a duration")
                .contains("Action:", "Set waitTime to a duration such as \"3s\", \"500ms\" or \"PT3S\"");
    }

    @Test
    void badDurationPropertyIsReportedNamingTheProperty(CapturedOutput output) {
        String report = report(output, NoStoreApplication.class, "distlock.wait-time=soon");

        assertThat(report).contains("Description:", "Invalid distlock configuration:", "distlock.wait-time = 'soon'",
                "is not a duration such as 3s, 500ms or PT3S")
                .contains("Action:", "Set distlock.wait-time to a duration such as 3s, 500ms or PT3S");
    }

    @Test
    void refusedPropertyValueIsReportedNamingTheProperty(CapturedOutput output) {
        String report = report(output, NoStoreApplication.class, "distlock.lease-time=0s");

        assertThat(report).contains("Description:", "distlock.lease-time must be at least 3 ms: 0 ms")
                .contains("Action:", "Change distlock.lease-time in the application's configuration");
    }

    @Test
    void missingStoreStarterIsReportedNamingTheMethodAndWhatToAdd(CapturedOutput output) {
        String report = report(output, NoStoreApplication.class);

        assertThat(report).contains("Description:", "@DistributedLock on " + Locked.class.getName()
                + ".work needs a lock store", "no lock store is on the class path")
                .contains("Action:", "Add a lock store's starter to the dependencies, for example "
                        + "dev.distlock:distlock-spring-boot-starter", "distlock.enabled=false");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ AopAutoConfiguration.class, DistlockAutoConfiguration.class,
            DistlockAnnotationAutoConfiguration.class })
    static class Distlock {
    }

    @Configuration(proxyBeanMethods = false)
    static class BadKeyApplication extends Distlock {

        @Bean
        BadKey badKey() {
            return new BadKey();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadDurationApplication extends Distlock {

        @Bean
        BadDuration badDuration() {
            return new BadDuration();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoStoreApplication extends Distlock {

        @Bean
        Locked locked() {
            return new Locked();
        }
    }

    /** The review's typo: the parameter is productId. */
    static class BadKey {

        @DistributedLock(name = "stock", key = "#prodId")
        public void deduct(long productId, int quantity) {
        }
    }

    static class BadDuration {

        @DistributedLock(name = "job", waitTime = "soon")
        public void run() {
        }
    }

    static class Locked {

        @DistributedLock(name = "work")
        public void work() {
        }
    }
}
