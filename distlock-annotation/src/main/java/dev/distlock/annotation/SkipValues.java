package dev.distlock.annotation;

import java.lang.reflect.Array;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

/**
 * The value a skipped method ({@link OnTimeout#SKIP}) returns: empty for its return type.
 */
final class SkipValues {

    private SkipValues() {
    }

    static @Nullable Object emptyValue(Class<?> type) {
        if (type == void.class || type == Void.class) {
            return null;
        }
        if (type.isPrimitive()) {
            // The default of a primitive type is the only element of a fresh one-element array.
            return Array.get(Array.newInstance(type, 1), 0);
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == OptionalInt.class) {
            return OptionalInt.empty();
        }
        if (type == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return CompletableFuture.completedFuture(null);
        }
        if (type == Stream.class) {
            return Stream.empty();
        }
        if (type.isArray()) {
            return Array.newInstance(type.getComponentType(), 0);
        }
        if (ReturnKind.REACTOR_PRESENT && ReactorSupport.isReactive(type)) {
            return ReactorSupport.empty(type);
        }
        if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)) {
            return emptyContainer(type);
        }
        return null;
    }

    private static @Nullable Object emptyContainer(Class<?> type) {
        if (!type.isInterface() && !Modifier.isAbstract(type.getModifiers())
                && ClassUtils.hasConstructor(type)) {
            return BeanUtils.instantiateClass(type);
        }
        if (type.isAssignableFrom(List.class)) {
            return List.of();
        }
        if (NavigableSet.class.isAssignableFrom(type) || SortedSet.class.isAssignableFrom(type)) {
            return Collections.emptyNavigableSet();
        }
        if (type.isAssignableFrom(Set.class)) {
            return Set.of();
        }
        if (NavigableMap.class.isAssignableFrom(type) || SortedMap.class.isAssignableFrom(type)) {
            return Collections.emptyNavigableMap();
        }
        if (type.isAssignableFrom(Map.class)) {
            return Map.of();
        }
        return null;
    }
}
