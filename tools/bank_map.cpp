// bank_map.cpp — lab 3's bank map: where the 32 words of one tile column land in shared memory.
//
//   make bank-map            (writes docs/img/bank_map.png; no GPU needed)
//   build/bank_map OUT.png
//
// Shared memory has w = 32 banks; word address a lives in bank a mod 32. The transpose of lab 3
// stages a w x w tile and then reads it by columns: a warp's 32 lanes read the 32 elements of one
// tile column. Three arrangements of the tile (Kasagi et al. 2014, section IV, Lemma 1):
//   naive     element (i, j) at word i*32 + j           column j: all in bank j  -> 32-way conflict
//   padded    element (i, j) at word i*33 + j           column j: banks (i + j) mod 32 -> none
//   diagonal  element (i, j) at word i*32 + (i+j) mod 32  column j: banks (i + j) mod 32 -> none,
//             and no wasted pad words.
// The picture draws each arrangement as shared memory is laid out (32 banks across, one line of 32
// words per row of the picture), each word coloured by the tile column j of the element it holds;
// the words of one column read (j = 5) are white, pad words grey.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "io.h"

namespace {

constexpr int w = 32;
constexpr int highlight_col = 5;  // the column a warp reads in the picture

// ---- A tiny 5x7 bitmap font, so the picture explains itself ------------------------------------

using Glyph = std::array<const char*, 7>;
const std::map<char, Glyph>& font() {
    static const std::map<char, Glyph> glyphs = {
        {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
        {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
        {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
        {'D', {"####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."}},
        {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
        {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
        {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
        {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
        {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
        {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
        {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
        {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
        {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
        {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
        {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
        {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
        {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
        {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
        {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
        {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
        {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
        {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
        {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
        {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
        {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
        {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
        {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
        {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
        {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
        {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
        {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
        {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
        {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
        {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
        {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
        {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
        {'[', {".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###."}},
        {']', {".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###."}},
        {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
        {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
        {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
        {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
        {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
        {'*', {".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", "....."}},
        {'/', {"....#", "....#", "...#.", "..#..", ".#...", "#....", "#...."}},
        {'>', {"#....", ".#...", "..#..", "...#.", "..#..", ".#...", "#...."}},
        {':', {".....", "..#..", "..#..", ".....", "..#..", "..#..", "....."}},
        {',', {".....", ".....", ".....", ".....", "..#..", "..#..", ".#..."}},
        {'.', {".....", ".....", ".....", ".....", ".....", "..#..", "..#.."}},
        {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
    };
    return glyphs;
}

struct Canvas {
    int width, height;
    std::vector<unsigned char> rgb;
    Canvas(int wd, int ht) : width(wd), height(ht), rgb(std::size_t(wd) * ht * 3, 255) {}
    void put(int x, int y, const unsigned char c[3]) {
        if (x < 0 || y < 0 || x >= width || y >= height) return;
        std::memcpy(&rgb[(std::size_t(y) * width + x) * 3], c, 3);
    }
    void rect(int x, int y, int wd, int ht, const unsigned char c[3]) {
        for (int yy = y; yy < y + ht; ++yy)
            for (int xx = x; xx < x + wd; ++xx) put(xx, yy, c);
    }
    // Text in capitals, `scale` pixels per font dot, 6 dots per character.
    void text(int x, int y, const std::string& s, int scale, const unsigned char c[3]) {
        for (char ch : s) {
            auto it = font().find(ch >= 'a' && ch <= 'z' ? char(ch - 'a' + 'A') : ch);
            if (it != font().end())
                for (int r = 0; r < 7; ++r)
                    for (int k = 0; k < 5; ++k)
                        if (it->second[r][k] == '#') rect(x + k * scale, y + r * scale, scale, scale, c);
            x += 6 * scale;
        }
    }
};

// One arrangement: the word address of tile element (i, j), and the words per tile row.
struct Arrangement {
    const char* name;
    const char* formula;
    int row_words;  // 32, or 33 with one pad word per row
    int (*address)(int i, int j);
};

// Degree of the bank conflict of a warp reading tile column j: the most lanes on one bank.
int conflict_degree(const Arrangement& a, int j) {
    int per_bank[w] = {};
    int worst = 0;
    for (int i = 0; i < w; ++i) worst = std::max(worst, ++per_bank[a.address(i, j) % w]);
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "docs/img/bank_map.png";
    const Arrangement arrangements[] = {
        {"NAIVE", "[I][J] AT I*32 + J", 32, [](int i, int j) { return i * w + j; }},
        {"PADDED", "[I][J] AT I*33 + J", 33, [](int i, int j) { return i * (w + 1) + j; }},
        {"DIAGONAL", "[I][(I+J) MOD 32]", 32, [](int i, int j) { return i * w + (i + j) % w; }},
    };
    const int cell = 9, margin = 36, text_scale = 2, line = 9 * text_scale;
    const int panel = w * cell;
    const int top = margin + 3 * line + 8;            // title, formula, axis label
    const int lines_of_words = w * (w + 1) / w + 1;  // room for the padded layout's 33 lines
    const int width = 3 * panel + 4 * margin;
    const int height = top + lines_of_words * cell + 3 * line + margin + 2 * line;
    Canvas img(width, height);
    const unsigned char black[3] = {0, 0, 0}, white[3] = {255, 255, 255}, grey[3] = {150, 150, 150},
                        red[3] = {200, 30, 30}, green[3] = {20, 130, 40}, frame[3] = {60, 60, 60};

    img.text(margin, 10, "LAB 3: SHARED-MEMORY BANKS OF A 32X32 TILE, AND ONE WARP READING COLUMN 5", text_scale, black);
    for (int p = 0; p < 3; ++p) {
        const Arrangement& a = arrangements[p];
        const int x0 = margin + p * (panel + margin);
        img.text(x0, margin + 4, a.name, text_scale, black);
        img.text(x0, margin + 4 + line, a.formula, text_scale, black);
        img.text(x0, margin + 4 + 2 * line, "BANK 0 ... 31 ->", text_scale, frame);
        const int words = w * a.row_words;
        const int lines = (words + w - 1) / w;
        img.rect(x0 - 2, top - 2, panel + 4, lines * cell + 4, frame);
        for (int addr = 0; addr < lines * w; ++addr) {
            const int bank = addr % w, word_line = addr / w;
            const int x = x0 + bank * cell, y = top + word_line * cell;
            unsigned char c[3];
            const int i = addr / a.row_words, j_slot = addr % a.row_words;
            int j = -1;  // the tile column stored at this address, -1 for a pad word
            if (addr < words && j_slot < w) {
                for (int jj = 0; jj < w; ++jj)
                    if (a.address(i, jj) == addr) j = jj;
            }
            if (addr >= words) std::memcpy(c, white, 3);
            else if (j < 0) std::memcpy(c, grey, 3);
            else if (j == highlight_col) std::memcpy(c, white, 3);
            else sat::ramp_colour(double(j) / (w - 1), c);
            img.rect(x, y, cell - 1, cell - 1, c);
            if (j == highlight_col) {  // outline the words of the column read
                img.rect(x, y, cell - 1, 1, black);
                img.rect(x, y + cell - 2, cell - 1, 1, black);
                img.rect(x, y, 1, cell - 1, black);
                img.rect(x + cell - 2, y, 1, cell - 1, black);
            }
        }
        const int degree = conflict_degree(a, highlight_col);
        const int y_text = top + lines_of_words * cell + 6;
        const std::string verdict = degree == 1 ? "NO CONFLICT: 32 BANKS" : std::to_string(degree) + "-WAY CONFLICT: 1 BANK";
        img.text(x0, y_text, verdict, text_scale, degree == 1 ? green : red);
        img.text(x0, y_text + line, degree == 1 ? "1 SHARED ACCESS" : std::to_string(degree) + " SHARED ACCESSES",
                 text_scale, degree == 1 ? green : red);
        std::printf("%-9s %-22s column %d read: %d-way bank conflict, %d words per tile\n", a.name, a.formula,
                    highlight_col, degree, words);
    }
    const int y_legend = height - margin - line;
    img.text(margin, y_legend - line, "COLOUR = COLUMN J OF THE STORED ELEMENT (0 BLUE ... 31 YELLOW)", text_scale, black);
    img.text(margin, y_legend, "WHITE = THE 32 WORDS OF COLUMN 5, READ BY ONE WARP   GREY = PAD WORD", text_scale, black);
    sat::write_image(path, width, height, 3, img.rgb.data());
    std::printf("wrote %s\n", path.c_str());
    return 0;
}
