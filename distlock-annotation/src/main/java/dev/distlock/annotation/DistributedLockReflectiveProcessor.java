package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.util.ClassUtils;

/**
 * Registers, at AOT processing time, what the lock advice reaches by reflection on each
 * {@link DistributedLock @DistributedLock} method of a bean: the method itself (read for its annotation when the
 * operation source parses it, invoked through the proxy), and the no-argument constructor of a concrete collection
 * or map return type, which {@code onTimeout = SKIP} instantiates to return an empty value ({@link SkipValues}).
 * Spring finds the methods through the {@code @Reflective} meta-annotation on {@code @DistributedLock}.
 */
final class DistributedLockReflectiveProcessor extends SimpleReflectiveProcessor {

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        Class<?> returnType = method.getReturnType();
        if ((Collection.class.isAssignableFrom(returnType) || Map.class.isAssignableFrom(returnType))
                && !returnType.isInterface() && !Modifier.isAbstract(returnType.getModifiers())
                && ClassUtils.hasConstructor(returnType)) {
            hints.registerType(returnType, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
        }
    }
}
