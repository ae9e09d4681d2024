import { useRef, type ChangeEvent, type ReactNode } from 'react';
import { api, errorText } from '../bridge/api';
import { itemFromPicked } from '../bridge/drop-collect';
import { useApp } from '../app/app-store';
import { useScans } from './scans-store';

export interface ScanPickers {
  /** True where the OS file dialog is used (Electron); web mode uses the page's file inputs. */
  native: boolean;
  addFiles(): void;
  addFolder(): void;
  /** The hidden inputs web mode needs; render once. */
  inputs: ReactNode;
}

/** "Add scans": the native dialog in the desktop app, the browser's file and folder choosers in web mode. */
export function useScanPickers(): ScanPickers {
  const native = useApp((s) => s.info?.nativeDialogs ?? false);
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);

  const chooseNative = async (): Promise<void> => {
    try {
      const { grants } = await api.scans.choose({});
      await useScans.getState().addGrants(grants);
    } catch (e) {
      useScans.setState({ error: errorText(e) });
    }
  };

  const onPicked = (input: HTMLInputElement): void => {
    const picked = [...(input.files ?? [])].map(itemFromPicked);
    // Clearing lets the same file be chosen again after it was removed from the list.
    input.value = '';
    void useScans.getState().addItems(picked);
  };

  // What the two hidden inputs share: both take many files and add what was picked.
  const chooser = {
    type: 'file',
    multiple: true,
    hidden: true,
    onChange: (e: ChangeEvent<HTMLInputElement>) => onPicked(e.currentTarget),
  } as const;

  return {
    native,
    addFiles: () => (native ? void chooseNative() : files.current?.click()),
    addFolder: () => (native ? void chooseNative() : folder.current?.click()),
    inputs: native ? null : (
      <>
        <input ref={files} {...chooser} aria-label="Scan files" data-testid="scan-file-input" />
        <input
          ref={(el) => {
            folder.current = el;
            // React does not know these attributes; set them on the element itself.
            if (el) {
              el.setAttribute('webkitdirectory', '');
              el.setAttribute('directory', '');
            }
          }}
          {...chooser}
          aria-label="Scan folder"
          data-testid="scan-folder-input"
        />
      </>
    ),
  };
}
