package dev.distlock.autoconfigure;

import dev.distlock.LockService;
import dev.distlock.annotation.AnnotationLockOperationSource;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.DistributedLockAdvisor;
import dev.distlock.annotation.DistributedLockInterceptor;
import dev.distlock.annotation.DistributedLockMethodValidator;
import dev.distlock.annotation.LockOperationSource;
import dev.distlock.annotation.TransactionOrderVerifier;
import dev.distlock.spi.LockStore;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.transaction.interceptor.TransactionInterceptor;

/**
 * Auto-configuration of {@link DistributedLock @DistributedLock}: an operation source that parses each annotated
 * method once, an advisor at {@code distlock.aspect-order} with a thin interceptor calling the {@link LockService},
 * and a start-up check of every annotated bean method. Active unless {@code distlock.enabled=false}, in which case
 * annotated methods run without locking. An application with annotated methods but no {@link LockService} (no
 * usable lock store) fails start-up saying why: locking is never silently off. Every bean backs off when the
 * application defines its own. Needs {@code distlock-annotation} (which the starters bring) and Spring AOP on the
 * class path.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({ Advisor.class, DistributedLockInterceptor.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@Import(DistlockAnnotationAutoConfiguration.AutoProxyRegistrar.class)
public class DistlockAnnotationAutoConfiguration {

    /**
     * Parses {@code @DistributedLock} once per method.
     *
     * @param environment resolves {@code ${...}} placeholders
     * @param beanFactory checks {@code @beanName} references of keys
     * @return the operation source
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockOperationSource distlockLockOperationSource(Environment environment, BeanFactory beanFactory) {
        return new AnnotationLockOperationSource(environment, beanFactory::containsBean);
    }

    /**
     * The lock advice.
     *
     * @param operationSource the operation source
     * @param lockService the lock service, resolved on first use
     * @return the interceptor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockInterceptor distributedLockInterceptor(LockOperationSource operationSource,
            ObjectProvider<LockService> lockService) {
        return new DistributedLockInterceptor(operationSource, lockService::getObject);
    }

    /**
     * The advisor, ordered by {@code distlock.aspect-order}. Read through the binder rather than injecting
     * {@link DistlockProperties}: advisors are created early, by the auto-proxy creator.
     *
     * @param operationSource the operation source
     * @param interceptor the lock advice
     * @param environment the environment
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockAdvisor distributedLockAdvisor(LockOperationSource operationSource,
            DistributedLockInterceptor interceptor, Environment environment) {
        int order = Binder.get(environment).bind("distlock.aspect-order", Integer.class)
                .orElse(DistlockProperties.DEFAULT_ASPECT_ORDER);
        return new DistributedLockAdvisor(operationSource, interceptor, order);
    }

    /**
     * Validates every annotated method of each bean when it is created.
     *
     * @param operationSource the operation source
     * @return the validator
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockMethodValidator distributedLockMethodValidator(LockOperationSource operationSource) {
        return new DistributedLockMethodValidator(operationSource);
    }

    /**
     * Fails start-up when annotated methods exist but no lock service does.
     *
     * @param validator the validator that saw the annotated methods
     * @param lockServices the lock service, if any
     * @return the check
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockServiceRequiredVerifier distlockLockServiceRequiredVerifier(DistributedLockMethodValidator validator,
            ObjectProvider<LockService> lockServices) {
        return new LockServiceRequiredVerifier(validator, lockServices);
    }

    /**
     * Fails start-up when an annotated method asks for permits of a store that has none.
     *
     * @param validator the validator that saw the annotated methods
     * @param stores the lock store, if any
     * @return the check
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static PermitsSupportVerifier distlockPermitsSupportVerifier(DistributedLockMethodValidator validator,
            ObjectProvider<LockStore> stores) {
        return new PermitsSupportVerifier(validator, stores);
    }

    /**
     * Warns when the lock advice is ordered inside the transaction advice.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionInterceptor.class)
    static class TransactionOrderConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static TransactionOrderVerifier distlockTransactionOrderVerifier(ListableBeanFactory beanFactory,
                DistributedLockAdvisor advisor) {
            return new TransactionOrderVerifier(beanFactory, advisor);
        }
    }

    /**
     * Makes sure an auto-proxy creator exists (as {@code @EnableCaching} does); Spring Boot's AOP auto-configuration
     * may upgrade it to the AspectJ-aware one and decides between JDK and CGLIB proxies.
     */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
