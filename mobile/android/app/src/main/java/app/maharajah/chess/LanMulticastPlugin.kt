package app.maharajah.chess

import android.app.Activity
import app.tauri.annotation.Command
import app.tauri.annotation.InvokeArg
import app.tauri.annotation.TauriPlugin
import app.tauri.plugin.Invoke
import app.tauri.plugin.Plugin

/** The payload of `acquire` and `release`: which use starts or stops. */
@InvokeArg
class MulticastUseArgs {
    /** `BROWSING` or `ADVERTISING` ([LanMulticastLock.Use]). */
    lateinit var use: String
}

/**
 * The Tauri mobile plugin the Rust side (`src-tauri/src/multicast.rs`, registered as
 * `lan-multicast`) calls when the first hold of a use starts (`acquire`) and when the last one
 * ends (`release`). [LanMulticastLock] turns the uses into one system lock.
 */
@TauriPlugin
class LanMulticastPlugin(private val activity: Activity) : Plugin(activity) {
    private fun useOf(invoke: Invoke): LanMulticastLock.Use? {
        val args = invoke.parseArgs(MulticastUseArgs::class.java)
        return LanMulticastLock.Use.values().firstOrNull { it.name == args.use }
            ?: run { invoke.reject("unknown multicast use: ${args.use}"); null }
    }

    @Command
    fun acquire(invoke: Invoke) {
        val use = useOf(invoke) ?: return
        LanMulticastLock.acquire(activity, use)
        invoke.resolve()
    }

    @Command
    fun release(invoke: Invoke) {
        val use = useOf(invoke) ?: return
        LanMulticastLock.release(use)
        invoke.resolve()
    }
}
