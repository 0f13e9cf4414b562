import { SignIn, StudioPage } from '../studio/SignIn';
import { Dashboard } from './Dashboard';
import '../studio/studio.css';

/** /reports/<study>: the live dashboard alone, for analysts (researchers see it on the study page too). */
export default function ReportsApp({ study }: { study: string }) {
  return (
    <StudioPage title={study}>
      <SignIn>
        <Dashboard study={study} />
      </SignIn>
    </StudioPage>
  );
}
