// A stopwatch over the X display, for GUI times measured to the pixels drawn rather than to a
// signal inside the program: starts a command on $DISPLAY and grabs the root window's rows every
// 10 ms until at least PERCENT % of their pixels are ink (strong colour or mid-tone grey: the
// timeline's bands and folded band; the start page, the progress bar and the window's frame
// stay far below), then prints the seconds from the command's start to that grab and ends the
// command. X_STOPWATCH_TRACE=1 prints the share at each grab; X_STOPWATCH_PPM=FILE keeps the
// screen at the end.
//   x_stopwatch PERCENT TIMEOUT_S CMD [ARGS...]       (exit 1 on timeout)
// With X_STOPWATCH_OPEN=FILE it opens FILE as a user does, and times from there: once the
// command's window is up it types Ctrl+O, then FILE's path and Return into the file dialog
// (synthetic key events, sent to each window in turn); the clock starts at that Return. Once the
// dialog is gone it types Ctrl+2 (View ▸ Timeline) in the window, as the timeline is what it
// waits for.
#include <xcb/xcb.h>
#include <xcb/xproto.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <vector>
#include <thread>
#include <unistd.h>

namespace {
// Ink: strong colour, or a mid-tone (the folded band's grey), not the black root, the window's
// light grey or white paper, nor text (sparse). Pixels are B, G, R, pad (24-bit depth).
long inkIn(const uint8_t *p, int bytes)
{
    long strong = 0;
    for (int i = 0; i + 3 < bytes; i += 4) {
        const int lo = std::min({p[i], p[i + 1], p[i + 2]}), hi = std::max({p[i], p[i + 1], p[i + 2]});
        strong += hi - lo > 80 || (lo > 60 && hi < 215);
    }
    return strong;
}

// The share of ink on the screen, from every 8th row. Grabbing the whole 1600 x 900 screen
// every 10 ms (5.8 MB through the X socket, then scanned) took a third of a core from the
// 2-core machine the program under test runs on; the rows are an eighth of that, and the
// timeline's bands are far taller than 8 rows.
double colouredShare(xcb_connection_t *c, const xcb_screen_t *screen)
{
    constexpr int kEvery = 8;
    std::vector<xcb_get_image_cookie_t> rows;
    for (int y = kEvery / 2; y < screen->height_in_pixels; y += kEvery)
        rows.push_back(xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen->root, 0, int16_t(y), screen->width_in_pixels, 1, ~0u));
    long strong = 0, all = 0;
    for (const xcb_get_image_cookie_t cookie : rows) {
        xcb_get_image_reply_t *reply = xcb_get_image_reply(c, cookie, nullptr);
        if (!reply)
            continue;
        const int bytes = xcb_get_image_data_length(reply);
        strong += inkIn(xcb_get_image_data(reply), bytes);
        all += bytes / 4;
        free(reply);
    }
    return all ? 100.0 * double(strong) / double(all) : 0;
}

// The whole screen as a PPM file, to look at (X_STOPWATCH_PPM).
void saveScreen(xcb_connection_t *c, const xcb_screen_t *screen, const char *path)
{
    const xcb_get_image_cookie_t cookie =
        xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen->root, 0, 0, screen->width_in_pixels, screen->height_in_pixels, ~0u);
    xcb_get_image_reply_t *reply = xcb_get_image_reply(c, cookie, nullptr);
    if (!reply)
        return;
    const uint8_t *p = xcb_get_image_data(reply);
    const int bytes = xcb_get_image_data_length(reply);
    if (FILE *f = std::fopen(path, "wb")) {
        std::fprintf(f, "P6 %d %d 255\n", screen->width_in_pixels, screen->height_in_pixels);
        for (int i = 0; i + 3 < bytes; i += 4) {
            const unsigned char rgb[3] = {p[i + 2], p[i + 1], p[i]};
            std::fwrite(rgb, 1, 3, f);
        }
        std::fclose(f);
    }
    free(reply);
}

// The top-level windows that are mapped (no window manager: children of the root).
std::vector<xcb_window_t> shownWindows(xcb_connection_t *c, const xcb_screen_t *screen)
{
    std::vector<xcb_window_t> out;
    xcb_query_tree_reply_t *tree = xcb_query_tree_reply(c, xcb_query_tree(c, screen->root), nullptr);
    if (!tree)
        return out;
    const xcb_window_t *children = xcb_query_tree_children(tree);
    for (int i = 0; i < xcb_query_tree_children_length(tree); ++i) {
        xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(c, xcb_get_window_attributes(c, children[i]), nullptr);
        if (a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect)
            out.push_back(children[i]);
        free(a);
    }
    free(tree);
    return out;
}

// Waits until a top-level window not in `known` is shown; 0 after `seconds`.
xcb_window_t newWindow(xcb_connection_t *c, const xcb_screen_t *screen, const std::vector<xcb_window_t> &known, double seconds)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        for (xcb_window_t w : shownWindows(c, screen)) {
            if (std::find(known.begin(), known.end(), w) == known.end())
                return w;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
}

std::string title(xcb_connection_t *c, xcb_window_t window)
{
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(c, xcb_get_property(c, 0, window, XCB_ATOM_WM_NAME, XCB_GET_PROPERTY_TYPE_ANY, 0, 1024), nullptr);
    std::string out;
    if (r)
        out.assign(static_cast<const char *>(xcb_get_property_value(r)), size_t(xcb_get_property_value_length(r)));
    free(r);
    return out;
}

class Keyboard {
public:
    explicit Keyboard(xcb_connection_t *c) : c_(c)
    {
        const xcb_setup_t *setup = xcb_get_setup(c);
        first_ = setup->min_keycode;
        const int count = setup->max_keycode - setup->min_keycode + 1;
        xcb_get_keyboard_mapping_reply_t *m = xcb_get_keyboard_mapping_reply(c, xcb_get_keyboard_mapping(c, first_, uint8_t(count)), nullptr);
        if (!m)
            return;
        perCode_ = m->keysyms_per_keycode;
        const xcb_keysym_t *syms = xcb_get_keyboard_mapping_keysyms(m);
        syms_.assign(syms, syms + xcb_get_keyboard_mapping_keysyms_length(m));
        free(m);
    }
    // Sends the key that types keysym `sym` (Latin-1 characters are their own keysyms).
    bool press(xcb_window_t window, xcb_keysym_t sym, uint16_t modifiers = 0)
    {
        for (size_t i = 0; perCode_ && i < syms_.size(); ++i) {
            if (syms_[i] != sym || i % perCode_ > 1)
                continue;
            const auto code = static_cast<xcb_keycode_t>(first_ + i / perCode_);
            const uint16_t state = modifiers | (i % perCode_ == 1 ? XCB_MOD_MASK_SHIFT : 0);
            for (const uint8_t type : {uint8_t(XCB_KEY_PRESS), uint8_t(XCB_KEY_RELEASE)}) {
                xcb_key_press_event_t e{};
                e.response_type = type;
                e.detail = code;
                e.time = XCB_CURRENT_TIME;
                e.root = root_;
                e.event = window;
                e.child = XCB_NONE;
                e.state = state;
                e.same_screen = 1;
                xcb_send_event(c_, 0, window, type == XCB_KEY_PRESS ? XCB_EVENT_MASK_KEY_PRESS : XCB_EVENT_MASK_KEY_RELEASE,
                               reinterpret_cast<const char *>(&e));
            }
            xcb_flush(c_);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return true;
        }
        return false;
    }
    xcb_window_t root_ = 0;

private:
    xcb_connection_t *c_;
    xcb_keycode_t first_ = 0;
    int perCode_ = 0;
    std::vector<xcb_keysym_t> syms_;
};

// Ctrl+O in the command's window, then `path` and Return in the dialog (`start` is set then),
// then Ctrl+2. False when a window or a key is missing.
bool openThroughTheDialog(xcb_connection_t *c, const xcb_screen_t *screen, const char *path, std::chrono::steady_clock::time_point &start)
{
    const xcb_window_t main = newWindow(c, screen, {}, 30);
    if (!main)
        return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1500)); // the start page settles
    Keyboard keys(c);
    keys.root_ = screen->root;
    xcb_set_input_focus(c, XCB_INPUT_FOCUS_POINTER_ROOT, main, XCB_CURRENT_TIME);
    if (!keys.press(main, 'o', XCB_MOD_MASK_CONTROL))
        return false;
    const xcb_window_t dialog = newWindow(c, screen, {main}, 10);
    if (!dialog)
        return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1000)); // the dialog lists its folder
    xcb_set_input_focus(c, XCB_INPUT_FOCUS_POINTER_ROOT, dialog, XCB_CURRENT_TIME);
    for (const char *p = path; *p; ++p) {
        if (!keys.press(dialog, static_cast<unsigned char>(*p)))
            return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (!keys.press(dialog, 0xff0d)) // Return
        return false;
    start = std::chrono::steady_clock::now();
    // The window's title names the file once its document is there to switch pages in.
    const char *slash = std::strrchr(path, '/');
    const std::string name = slash ? slash + 1 : path;
    for (int i = 0; i < 6000 && title(c, main).find(name) == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    xcb_set_input_focus(c, XCB_INPUT_FOCUS_POINTER_ROOT, main, XCB_CURRENT_TIME);
    return keys.press(main, '2', XCB_MOD_MASK_CONTROL);
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: x_stopwatch PERCENT TIMEOUT_S CMD [ARGS...]\n");
        return 2;
    }
    const double percent = std::atof(argv[1]), timeout = std::atof(argv[2]);
    xcb_connection_t *c = xcb_connect(nullptr, nullptr);
    if (xcb_connection_has_error(c)) {
        std::fprintf(stderr, "x_stopwatch: no X display\n");
        return 2;
    }
    const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    if (const char *open = std::getenv("X_STOPWATCH_OPEN")) {
        if (!openThroughTheDialog(c, screen, open, start)) {
            std::fprintf(stderr, "x_stopwatch: could not open %s through the dialog\n", open);
            kill(child, SIGTERM);
            waitpid(child, nullptr, 0);
            return 1;
        }
    }
    int code = 1;
    for (;;) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double share = colouredShare(c, screen);
        if (std::getenv("X_STOPWATCH_TRACE"))
            std::fprintf(stderr, "%.2f s: %.1f %%\n", seconds, share);
        if (share >= percent) {
            std::printf("%.3f\n", seconds);
            code = 0;
            break;
        }
        if (seconds > timeout || waitpid(child, nullptr, WNOHANG) == child)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (const char *ppm = std::getenv("X_STOPWATCH_PPM")) // the screen at the end, to look at
        saveScreen(c, screen, ppm);
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
    xcb_disconnect(c);
    return code;
}
