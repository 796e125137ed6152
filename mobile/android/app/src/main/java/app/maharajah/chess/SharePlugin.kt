package app.maharajah.chess

import android.app.Activity
import android.content.ActivityNotFoundException
import android.content.Intent
import app.tauri.annotation.Command
import app.tauri.annotation.InvokeArg
import app.tauri.annotation.TauriPlugin
import app.tauri.plugin.Invoke
import app.tauri.plugin.Plugin

/** The payload of `share`: the text to send and the subject / chooser title. */
@InvokeArg
class ShareArgs {
    lateinit var text: String
    var title: String? = null
}

/**
 * The system share sheet for the Rust side (`src-tauri/src/android.rs`, registered as
 * `share-sheet`): Android's WebView has no `navigator.share`, so a PGN, a room code or a join
 * link is sent as plain text with `ACTION_SEND` through the chooser. It resolves once the chooser
 * is shown (Android does not say what the person picked).
 */
@TauriPlugin
class SharePlugin(private val activity: Activity) : Plugin(activity) {
    @Command
    fun share(invoke: Invoke) {
        val args = invoke.parseArgs(ShareArgs::class.java)
        val send = Intent(Intent.ACTION_SEND).apply {
            type = "text/plain"
            putExtra(Intent.EXTRA_TEXT, args.text)
            args.title?.let { putExtra(Intent.EXTRA_SUBJECT, it) }
        }
        activity.runOnUiThread {
            try {
                activity.startActivity(Intent.createChooser(send, args.title))
                invoke.resolve()
            } catch (e: ActivityNotFoundException) {
                invoke.reject("no app can receive shared text: ${e.message}")
            }
        }
    }
}
